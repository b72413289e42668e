/** (b) The framework alone: engines replaced by doubles with hosted latencies, many calls in one process. */
import { VoiceAgent } from '../../src/agent/index.js';
import { runFileCall } from '../../src/transports/file/file-call.js';
import { callerTrack, EnergyVad, FixedDialogue, AmplitudeStt, ToneTts } from '../../test/support/agent-doubles.js';
import { HostedDialogue, HostedStt, HostedTts, hostedLatencyMs } from './hosted-doubles.js';
import { concurrentRun, mb, p, round, settledMemory } from './measure.js';

const callMs = 10_000;
const track = callerTrack(callMs, [
  { atMs: 800, ms: 1500, amplitude: 5000 },
  { atMs: 5500, ms: 1200, amplitude: 5000 },
]);

function hostedAgent(): VoiceAgent {
  return new VoiceAgent({ dialogue: new HostedDialogue(), stt: new HostedStt(), tts: new HostedTts(), vad: () => new EnergyVad(), mode: 'low-latency' });
}

/** `calls` concurrent real-time calls started over `spreadMs`: framework overhead per turn and memory per call. */
export async function concurrentCalls(calls: number, spreadMs: number) {
  const agent = hostedAgent();
  await runFileCall(agent, track, { fast: false }); // warm-up (JIT)
  const { turns, before, peakRss, cpuMs } = await concurrentRun(calls, spreadMs / calls, () => runFileCall(agent, track, { fast: false }));
  const overhead = turns.map((t) => t.metrics.frameworkOverheadMs).filter((v): v is number => v !== undefined);
  const v2v = turns.map((t) => t.metrics.voiceToVoiceMs).filter((v): v is number => v !== undefined);
  return {
    calls,
    engine_latency_ms: hostedLatencyMs,
    turns: turns.length,
    framework_overhead_p50_ms: p(overhead, 50),
    framework_overhead_p95_ms: p(overhead, 95),
    v2v_p50_ms: p(v2v, 50),
    v2v_p95_ms: p(v2v, 95),
    rss_per_call_mb: round((peakRss - before.rss) / 2 ** 20 / calls, 2),
    cpu_ms_per_call_second: round(cpuMs / ((calls * callMs) / 1000), 2),
  };
}

/** `count` calls one after another on a virtual clock with zero-cost doubles: does memory grow per call? */
export async function sequentialCalls(count: number) {
  const dialogue = new FixedDialogue('Sure.');
  const agent = new VoiceAgent({ dialogue, stt: new AmplitudeStt(), tts: new ToneTts(), vad: () => new EnergyVad(), mode: 'low-latency' });
  // The test double keeps every dialogue input (and through it the call) for tests to read: forget them after
  // each call, so only what the framework keeps is measured.
  const call = async () => {
    await runFileCall(agent, track, { fast: true });
    dialogue.inputs.length = 0;
  };
  for (let i = 0; i < 50; i++) await call();
  const start = await settledMemory();
  for (let i = 0; i < count; i++) await call();
  const end = await settledMemory();
  return {
    calls: count,
    rss_start_mb: mb(start.rss),
    rss_end_mb: mb(end.rss),
    rss_growth_mb: mb(end.rss - start.rss),
    heap_growth_mb: mb(end.heap - start.heap),
    heap_growth_kb_per_call: round((end.heap - start.heap) / 1024 / count, 2),
  };
}
