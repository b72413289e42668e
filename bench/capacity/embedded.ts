/** (a) N concurrent fixture calls through the embedded stack in one process, staggered, in real time. */
import { readFileSync } from 'node:fs';
import { createAgent } from '../../agents/index.js';
import { createEmbeddedAgentStack, type TurnReport } from '../../src/agent/index.js';
import { decodeCall, runFileCall } from '../../src/transports/file/run-call.js';
import { largestWithin, mb, p, round, rssSampler, settledMemory } from './measure.js';

const fixture = new URL('../../test/fixtures/calls/booking-16k.wav', import.meta.url);

export async function embeddedCapacity(counts: number[], staggerMs: number) {
  const caller = await decodeCall(readFileSync(fixture));
  const callSeconds = caller.samples.length / caller.sampleRate;
  const stack = await createEmbeddedAgentStack({ mode: 'low-latency' });
  const rows = [];
  try {
    await runFileCall(stack.agentFor(createAgent('receptionist')), caller, { fast: true }); // warm-up
    const idle = await settledMemory();
    for (const calls of counts) {
      const before = await settledMemory();
      const sampler = rssSampler();
      const cpu = process.cpuUsage();
      const turns: TurnReport[] = [];
      await Promise.all(
        Array.from({ length: calls }, async (_, i) => {
          await new Promise((resolve) => setTimeout(resolve, i * staggerMs));
          const { summary } = await runFileCall(stack.agentFor(createAgent('receptionist')), caller, { fast: false });
          turns.push(...summary.turns.filter((t) => t.user_text !== ''));
        }),
      );
      const used = process.cpuUsage(cpu);
      const peak = sampler.stop();
      const v2v = turns.map((t) => t.metrics.voiceToVoiceMs).filter((v): v is number => v !== undefined);
      rows.push({
        calls,
        turns: v2v.length,
        v2v_p50_ms: p(v2v, 50),
        v2v_p95_ms: p(v2v, 95),
        rss_per_call_mb: round((peak - before.rss) / 2 ** 20 / calls),
        cpu_ms_per_call_second: round((used.user + used.system) / 1000 / (calls * callSeconds)),
      });
    }
    return { idle_rss_mb: mb(idle.rss), call_seconds: round(callSeconds), stagger_ms: staggerMs, rows, largest_n_within_1_5x_p95: largestWithin(rows) };
  } finally {
    await stack.close();
  }
}
