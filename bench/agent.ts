/**
 * Agent benchmark: prints one JSON object.
 * - voice-to-voice p50/p95 per mode on the fixture calls, real-time, through the embedded stack;
 * - the framework's share of it (voice-to-voice minus endpointing, ASR, dialogue and TTS time);
 * - Silero VAD ms per 32 ms frame; framework CPU ms per second of call audio with engines replaced by
 *   zero-cost doubles; peak RSS per concurrent call.
 * Run: npx tsx bench/agent.ts [--quick]
 */
import { readFileSync } from 'node:fs';
import { createDialogue } from '../agents/index.js';
import { createEmbeddedAgentStack, percentile, VoiceAgent, type AgentMode, type TurnReport } from '../src/agent/index.js';
import { SileroVad } from '../src/engines/index.js';
import { decodeCall, runFileCall } from '../src/transports/file/file-call.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, ToneTts } from '../test/support/agent-doubles.js';

const quick = process.argv.includes('--quick');
const fixturesDir = new URL('../test/fixtures/calls/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', fixturesDir), 'utf8')) as { file: string }[];
const agentOf = (file: string) => (file.startsWith('support') ? 'support' : 'receptionist');
const round = (value: number | undefined) => (value === undefined ? null : Math.round(value * 100) / 100);

async function voiceToVoice(mode: AgentMode) {
  const stack = await createEmbeddedAgentStack({ mode });
  const turns: TurnReport[] = [];
  try {
    for (const fixture of quick ? manifest.slice(0, 1) : manifest) {
      const caller = await decodeCall(readFileSync(new URL(fixture.file, fixturesDir)));
      const { summary } = await runFileCall(stack.agentFor(createDialogue(agentOf(fixture.file))), caller, { fast: false });
      turns.push(...summary.turns.filter((t) => t.userText !== ''));
    }
  } finally {
    await stack.close();
  }
  const v2v = turns.map((t) => t.metrics.voiceToVoiceMs).filter((v): v is number => v !== undefined);
  const overhead = turns.map((t) => t.metrics.frameworkOverheadMs).filter((v): v is number => v !== undefined);
  const pick = (key: 'endpointingMs' | 'endOfSpeechToFinalMs' | 'dialogueFirstTokenMs' | 'ttsFirstAudioMs') =>
    round(percentile(turns.map((t) => t.metrics[key]).filter((v): v is number => v !== undefined), 50));
  return {
    turns: turns.length,
    voice_to_voice_p50_ms: round(percentile(v2v, 50)),
    voice_to_voice_p95_ms: round(percentile(v2v, 95)),
    framework_overhead_p50_ms: round(percentile(overhead, 50)),
    framework_overhead_turns: overhead.length,
    preemptive_turns: turns.filter((t) => t.metrics.preemptive).length,
    endpointing_p50_ms: pick('endpointingMs'),
    asr_final_p50_ms: pick('endOfSpeechToFinalMs'),
    dialogue_first_token_p50_ms: pick('dialogueFirstTokenMs'),
    tts_first_audio_p50_ms: pick('ttsFirstAudioMs'),
  };
}

async function vadMsPerFrame() {
  const caller = await decodeCall(readFileSync(new URL('booking-16k.wav', fixturesDir)));
  const vad = await new SileroVad().ready();
  const frames = Math.floor(caller.samples.length / 512);
  for (let i = 0; i < 20; i++) await vad.probability(caller.samples.subarray(i * 512, i * 512 + 512));
  const started = performance.now();
  for (let i = 0; i < frames; i++) await vad.probability(caller.samples.subarray(i * 512, i * 512 + 512));
  const ms = (performance.now() - started) / frames;
  vad.release();
  return { frames, ms_per_frame: round(ms) };
}

/** The whole agent with zero-cost engine doubles, on a virtual clock: what the framework itself burns. */
async function frameworkCpu() {
  const callMs = 60_000;
  const segments = Array.from({ length: 12 }, (_, i) => ({ atMs: 1000 + i * 5000, ms: 1200, amplitude: 5000 }));
  const agent = new VoiceAgent({
    dialogue: new FixedDialogue('Sure, I can help with that. Anything else?'),
    stt: new AmplitudeStt(),
    tts: new ToneTts(),
    vad: () => new EnergyVad(),
    mode: 'low-latency',
  });
  await runFileCall(agent, callerTrack(5000, segments.slice(0, 1)), { fast: true }); // warm-up (JIT)
  const before = process.cpuUsage();
  const { summary } = await runFileCall(agent, callerTrack(callMs, segments), { fast: true });
  const used = process.cpuUsage(before);
  const cpuMs = (used.user + used.system) / 1000;
  return { call_seconds: summary.durationMs / 1000, turns: summary.turns.length, cpu_ms_per_call_second: round(cpuMs / (summary.durationMs / 1000)) };
}

async function rssPerConcurrentCall(concurrent: number) {
  const stack = await createEmbeddedAgentStack({ mode: 'balanced' });
  try {
    const caller = await decodeCall(readFileSync(new URL('booking-16k.wav', fixturesDir)));
    await runFileCall(stack.agentFor(createDialogue('receptionist')), caller, { fast: true });
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    await Promise.all(Array.from({ length: concurrent }, () => runFileCall(stack.agentFor(createDialogue('receptionist')), caller, { fast: false })));
    clearInterval(sampler);
    return { concurrent_calls: concurrent, baseline_rss_mb: round(baseline / 2 ** 20), peak_rss_mb: round(peak / 2 ** 20), peak_rss_per_call_mb: round((peak - baseline) / 2 ** 20 / concurrent) };
  } finally {
    await stack.close();
  }
}

const result = {
  machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
  voice_to_voice: {
    'low-latency': await voiceToVoice('low-latency'),
    balanced: await voiceToVoice('balanced'),
  },
  targets_ms: { low_latency_p50: 350, balanced_p50: 700, framework_overhead_p50: 5, vad_ms_per_frame: 0.5, framework_cpu_ms_per_call_second: 10 },
  vad: await vadMsPerFrame(),
  framework_cpu: await frameworkCpu(),
  memory: await rssPerConcurrentCall(quick ? 2 : 4),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(0);
