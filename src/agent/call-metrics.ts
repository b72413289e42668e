import { Counter, Gauge, Histogram } from 'prom-client';
import type { CallAdmission } from './admission.js';
import type { TurnMetrics } from './events.js';
import { metricsRegistry } from '../metrics/index.js';
import { countServed } from './provider-metrics.js';

const registers = [metricsRegistry];
/** The admissions whose calls are counted (usually one per process). */
const admissions = new Set<CallAdmission>();
const sum = (read: (admission: CallAdmission) => number): number => [...admissions].reduce((total, a) => total + read(a), 0);

const accepted = new Counter({ name: 'shoal_calls_accepted_total', help: 'Calls admitted', registers });
const refused = new Counter({ name: 'shoal_calls_refused_total', help: 'Calls refused because the process was full or draining', registers });
new Gauge({
  name: 'shoal_calls_active',
  help: 'Calls in progress',
  registers,
  collect() {
    this.set(sum((a) => a.active));
  },
});
new Gauge({
  name: 'shoal_calls_capacity',
  help: 'Calls this process admits at once (maxCalls)',
  registers,
  collect() {
    this.set(sum((a) => a.capacity));
  },
});
new Gauge({
  name: 'shoal_call_cpu_ms_per_second',
  help: 'CPU per second of call, in ms, that the default capacity assumes for the engines this process runs (embedded or hosted)',
  labelNames: ['engines'] as const,
  registers,
  collect() {
    this.reset();
    for (const admission of admissions) this.set({ engines: admission.engines }, admission.callCpuMsPerSecond);
  },
});
new Gauge({
  name: 'shoal_load',
  help: 'Share of the call capacity in use, 0..1 (1 while draining)',
  registers,
  collect() {
    this.set(admissions.size === 0 ? 0 : Math.max(...[...admissions].map((a) => a.load())));
  },
});

/** Stage latencies of each turn, in ms. */
const stageMs = new Histogram({
  name: 'shoal_turn_stage_ms',
  help: 'Latency of each stage of a turn in ms: endpointing, asr, dialogue_first_token, tts_first_audio, voice_to_voice, framework_overhead',
  labelNames: ['stage'] as const,
  buckets: [10, 25, 50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 10000],
  registers,
});

const stages: Array<[string, keyof TurnMetrics]> = [
  ['endpointing', 'endpointingMs'],
  ['asr', 'endOfSpeechToFinalMs'],
  ['dialogue_first_token', 'dialogueFirstTokenMs'],
  ['tts_first_audio', 'ttsFirstAudioMs'],
  ['voice_to_voice', 'voiceToVoiceMs'],
  ['framework_overhead', 'frameworkOverheadMs'],
];

/** Counts an admission's decisions and reports its calls, capacity and load; returns a function that stops. */
export function watchAdmission(admission: CallAdmission): () => void {
  admissions.add(admission);
  const subscription = admission.decisions$.subscribe((decision) => (decision === 'accepted' ? accepted : refused).inc());
  return () => {
    subscription.unsubscribe();
    admissions.delete(admission);
  };
}

/** Adds one finished turn's stage latencies to the histograms. */
export function recordTurn(metrics: TurnMetrics): void {
  for (const [stage, key] of stages) {
    const value = metrics[key];
    if (typeof value === 'number' && Number.isFinite(value)) stageMs.observe({ stage }, value);
  }
  if (metrics.sttProvider) countServed('stt', metrics.sttProvider);
  if (metrics.ttsProvider) countServed('tts', metrics.ttsProvider);
}
