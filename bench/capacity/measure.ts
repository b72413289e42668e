/** Small measuring helpers shared by the capacity benchmarks. */
import { loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { percentile, type TurnReport } from '../../src/agent/index.js';

export const round = (value: number | undefined, places = 1) => (value === undefined ? null : Math.round(value * 10 ** places) / 10 ** places);
export const mb = (bytes: number) => round(bytes / 2 ** 20);
export const load = () => loadavg().map((v) => round(v, 2));

export function p(values: number[], q: number): number | null {
  return round(percentile(values, q));
}

/** Samples the process's RSS every 50 ms until stopped; `peak` is the highest seen. */
export function rssSampler(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects garbage (twice, so finalisers run) and returns RSS and heap in use. */
export async function settledMemory(): Promise<{ rss: number; heap: number }> {
  for (let i = 0; i < 2; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed };
}

/** Largest N whose p95 stays within `factor` times the single call's p95. */
export function largestWithin(rows: Array<{ calls: number; v2v_p95_ms: number | null }>, factor = 1.5): number | null {
  const single = rows.find((row) => row.calls === 1)?.v2v_p95_ms;
  if (!single) return null;
  const within = rows.filter((row) => row.v2v_p95_ms !== null && row.v2v_p95_ms <= single * factor);
  return within.length ? Math.max(...within.map((row) => row.calls)) : null;
}

/**
 * Starts `calls` calls, the i-th after `i * gapMs`, and waits for all: the caller turns they answered, the CPU
 * they used, the peak RSS while they ran and the settled memory before they started.
 */
export async function concurrentRun(calls: number, gapMs: number, call: () => Promise<{ summary: { turns: TurnReport[] } }>) {
  const before = await settledMemory();
  const sampler = rssSampler();
  const cpu = process.cpuUsage();
  const turns: TurnReport[] = [];
  await Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * gapMs));
      const { summary } = await call();
      turns.push(...summary.turns.filter((t) => t.userText !== ''));
    }),
  );
  const used = process.cpuUsage(cpu);
  return { turns, before, peakRss: sampler.stop(), cpuMs: (used.user + used.system) / 1000 };
}
