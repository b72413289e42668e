/**
 * Memory over a long run: N short phone calls (one answer each) through one agent, in `lanes` lanes that each
 * dial one call after another (so `lanes` calls are up at a time). After a warm-up of one call per lane, and
 * after every `every` calls, the agent collects garbage (through its inspector) and reports its RSS and heap.
 * At the warm-up and at the end, the RSS after glibc returned its free memory (malloc_trim) tells memory in
 * use from the allocator's high-water. With `snapshotDir`, a heap snapshot is written at each of those points
 * (compare two with heap-diff.ts); taking one raises the agent's RSS, so RSS figures from such a run are not used.
 */
import { join } from 'node:path';
import { load, round } from '../capacity/measure.js';
import { connectInspector } from './inspector.js';

export interface SoakOptions {
  calls: number;
  lanes: number;
  every: number;
  snapshotDir?: string;
  inspectorUrl: string;
  /** Runs `lanes` callers, each making `perLane` calls one after another. */
  callers(lanes: number, perLane: number): Promise<{ results: Array<{ replies: Array<number | null> }> }>;
}

export async function soak(options: SoakOptions) {
  const inspector = await connectInspector(options.inspectorUrl);
  try {
    const settle = () => new Promise((resolve) => setTimeout(resolve, 2000));
    const checkpoint = async (calls: number) => {
      await settle();
      const before = await inspector.memory();
      const memory = await inspector.settledMemory();
      if (options.snapshotDir) await inspector.snapshot(join(options.snapshotDir, `agent-${calls}.heapsnapshot`));
      const point = { calls, ...memory, before_gc: { rss_mb: before.rss_mb, heap_mb: before.heap_mb }, load_average: load() };
      process.stderr.write(`${JSON.stringify(point)}\n`);
      return point;
    };

    // After the RSS readings at the warm-up and at the end, glibc is asked to return the memory it holds free:
    // the RSS left is what the process uses. The trim at the warm-up only lowers the base the calls grow from.
    const trimmed = async () => {
      const unavailable = await inspector.trimNativeHeap();
      return unavailable ? { rss_mb: null, unavailable } : { rss_mb: (await inspector.settledMemory()).rss_mb, unavailable: null };
    };
    await options.callers(options.lanes, 1);
    const warm = await checkpoint(0);
    const warmTrimmed = await trimmed();
    const points = [warm];
    const started = performance.now();
    let made = 0;
    let turns = 0;
    let answered = 0;
    while (made < options.calls) {
      const perLane = Math.max(1, Math.round(Math.min(options.every, options.calls - made) / options.lanes));
      const run = await options.callers(options.lanes, perLane);
      made += run.results.length;
      const replies = run.results.flatMap((r) => r.replies);
      turns += replies.length;
      answered += replies.filter((r) => r !== null).length;
      points.push(await checkpoint(made));
    }
    const last = points.at(-1)!;
    const lastTrimmed = await trimmed();
    const half = points.find((point) => point.calls >= made / 2)!;
    return {
      bench: 'hosted-density-soak',
      calls: made,
      lanes: options.lanes,
      minutes: round((performance.now() - started) / 60_000),
      turns_answered: answered,
      turns,
      memory_after: 'full GC in the agent (inspector HeapProfiler.collectGarbage), 2 s after the calls; before_gc: just before it',
      points,
      rss_growth_mb: round(last.rss_mb - warm.rss_mb),
      rss_growth_before_gc_mb: round(last.before_gc.rss_mb - warm.before_gc.rss_mb),
      heap_growth_mb: round(last.heap_mb - warm.heap_mb),
      heap_kb_per_call: round(((last.heap_mb - warm.heap_mb) * 1024) / made, 2),
      after_malloc_trim: {
        warm_up_rss_mb: warmTrimmed.rss_mb,
        end_rss_mb: lastTrimmed.rss_mb,
        unavailable: warmTrimmed.unavailable ?? lastTrimmed.unavailable,
        rss_growth_mb: warmTrimmed.rss_mb !== null && lastTrimmed.rss_mb !== null ? round(lastTrimmed.rss_mb - warmTrimmed.rss_mb) : null,
      },
      second_half: half === last ? null : { from_calls: half.calls, rss_growth_mb: round(last.rss_mb - half.rss_mb), heap_growth_mb: round(last.heap_mb - half.heap_mb) },
    };
  } finally {
    inspector.close();
  }
}
