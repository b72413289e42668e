/** (a) N concurrent fixture calls through the embedded stack in one process, staggered, in real time. */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createDialogue } from '../../agents/index.js';
import { createEmbeddedAgentStack } from '../../src/agent/index.js';
import { EnginePool } from '../../src/engines/pool/index.js';
import { decodeCall, runFileCall } from '../../src/transports/file/file-call.js';
import { concurrentRun, largestWithin, mb, p, round, settledMemory } from './measure.js';

const fixture = new URL('../../test/fixtures/calls/booking-16k.wav', import.meta.url);

/** Quiet after the recording, so the reply to the last caller turn is heard before the call ends. */
const tailMs = 5000;

/** Milliseconds each engine pool's threads have worked so far. */
const poolActiveMs = () => Object.fromEntries([...EnginePool.all].map((pool) => [pool.options.name, pool.stats.activeMs]));

export async function embeddedCapacity(counts: number[], staggerMs: number) {
  const recording = await decodeCall(readFileSync(fixture));
  const samples = new Int16Array(recording.samples.length + (tailMs * recording.sampleRate) / 1000);
  samples.set(recording.samples);
  const caller = { samples, sampleRate: recording.sampleRate };
  const callSeconds = caller.samples.length / caller.sampleRate;
  const stack = await createEmbeddedAgentStack({ mode: 'low-latency' });
  const call = (fast: boolean) => runFileCall(stack.agentFor(createDialogue('receptionist')), caller, { fast });
  const rows = [];
  try {
    await call(true); // warm-up
    const idle = await settledMemory();
    // Three overlapping calls start the second recognizer worker once (it loads its model); the rows measure after that.
    await Promise.all([call(true), call(true), call(true)]);
    const warm = await settledMemory();
    for (const calls of counts) {
      const pools = poolActiveMs();
      const lag = monitorEventLoopDelay({ resolution: 10 });
      lag.enable();
      const loop = performance.eventLoopUtilization();
      const { turns, before, peakRss, cpuMs } = await concurrentRun(calls, staggerMs, () => call(false));
      lag.disable();
      const callSecondsAll = calls * callSeconds;
      const perCallSecond = (ms: number) => round(ms / callSecondsAll);
      const v2v = turns.map((t) => t.metrics.voiceToVoiceMs).filter((v): v is number => v !== undefined);
      const asr = turns.map((t) => t.metrics.endOfSpeechToFinalMs).filter((v): v is number => v !== undefined);
      rows.push({
        calls,
        caller_turns: calls * 3,
        turns: v2v.length,
        v2v_p50_ms: p(v2v, 50),
        v2v_p95_ms: p(v2v, 95),
        asr_final_after_speech_p95_ms: p(asr, 95),
        rss_per_call_mb: round((peakRss - before.rss) / 2 ** 20 / calls),
        cpu_ms_per_call_second: perCallSecond(cpuMs),
        pool_active_ms_per_call_second: Object.fromEntries(Object.entries(poolActiveMs()).map(([name, ms]) => [name, perCallSecond(ms - (pools[name] ?? 0))])),
        main_thread_active_ms_per_call_second: perCallSecond(performance.eventLoopUtilization(loop).active),
        event_loop_lag_p99_ms: round(lag.percentile(99) / 1e6),
      });
    }
    const after = await settledMemory();
    return {
      idle_rss_mb: mb(idle.rss),
      warm_rss_mb: mb(warm.rss),
      rss_after_calls_mb: mb(after.rss),
      call_seconds: round(callSeconds),
      stagger_ms: staggerMs,
      rows,
      largest_n_within_1_5x_p95: largestWithin(rows),
    };
  } finally {
    await stack.close();
  }
}
