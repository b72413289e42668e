/** (a) N concurrent fixture calls through the embedded stack in one process, staggered, in real time. */
import { readFileSync } from 'node:fs';
import { createDialogue } from '../../agents/index.js';
import { createEmbeddedAgentStack } from '../../src/agent/index.js';
import { decodeCall, runFileCall } from '../../src/transports/file/run-call.js';
import { concurrentRun, largestWithin, mb, p, round, settledMemory } from './measure.js';

const fixture = new URL('../../test/fixtures/calls/booking-16k.wav', import.meta.url);

/** Quiet after the recording, so the reply to the last caller turn is heard before the call ends. */
const tailMs = 5000;

export async function embeddedCapacity(counts: number[], staggerMs: number) {
  const recording = await decodeCall(readFileSync(fixture));
  const samples = new Int16Array(recording.samples.length + (tailMs * recording.sampleRate) / 1000);
  samples.set(recording.samples);
  const caller = { samples, sampleRate: recording.sampleRate };
  const callSeconds = caller.samples.length / caller.sampleRate;
  const stack = await createEmbeddedAgentStack({ mode: 'low-latency' });
  const rows = [];
  try {
    await runFileCall(stack.agentFor(createDialogue('receptionist')), caller, { fast: true }); // warm-up
    const idle = await settledMemory();
    for (const calls of counts) {
      const { turns, before, peakRss, cpuMs } = await concurrentRun(calls, staggerMs, () =>
        runFileCall(stack.agentFor(createDialogue('receptionist')), caller, { fast: false }),
      );
      const v2v = turns.map((t) => t.metrics.voiceToVoiceMs).filter((v): v is number => v !== undefined);
      rows.push({
        calls,
        caller_turns: calls * 3,
        turns: v2v.length,
        v2v_p50_ms: p(v2v, 50),
        v2v_p95_ms: p(v2v, 95),
        rss_per_call_mb: round((peakRss - before.rss) / 2 ** 20 / calls),
        cpu_ms_per_call_second: round(cpuMs / (calls * callSeconds)),
      });
    }
    return { idle_rss_mb: mb(idle.rss), call_seconds: round(callSeconds), stagger_ms: staggerMs, rows, largest_n_within_1_5x_p95: largestWithin(rows) };
  } finally {
    await stack.close();
  }
}
