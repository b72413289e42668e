import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineBusyError, EnginePool } from '../../src/engines/index.js';
import { countFromEnv, machineWorkers } from '../../src/engines/pool/index.js';

interface Job { id: string; busyMs: number }
interface Done { seq: number; id: string; thread: number; ran: string[] }

/** A worker that keeps its thread busy for `busyMs`, then answers with its thread id and every job it has run. */
const source = `
const { parentPort, threadId } = require('node:worker_threads');
const ran = [];
parentPort.on('message', (job) => {
  const until = Date.now() + job.busyMs;
  while (Date.now() < until);
  ran.push(job.id);
  parentPort.postMessage({ seq: job.seq, id: job.id, thread: threadId, ran: [...ran] });
});`;

const pools: Array<EnginePool<Job, Done>> = [];
function pool(options: { size: number; maxQueue?: number; inFlightPerWorker?: number; pinsBeforeStarting?: number }): EnginePool<Job, Done> {
  const made = new EnginePool<Job, Done>(() => new Worker(source, { eval: true }), { name: 'test', ...options });
  pools.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
});

describe('worker pool', () => {
  it('refuses an unpinned task at once with EngineBusyError (503, retryAfterMs) when every worker and the queue are full', async () => {
    const p = pool({ size: 1, maxQueue: 1, inFlightPerWorker: 1 });
    const first = p.run({ id: 'a', busyMs: 300 });
    const second = p.run({ id: 'b', busyMs: 0 });
    let firstDone = false;
    void first.then(() => (firstDone = true));
    const refused = await p.run({ id: 'c', busyMs: 0 }).catch((error: unknown) => error);
    // At once: refused while the worker is still busy with the first task (however loaded the machine).
    expect(firstDone).toBe(false);
    expect(refused).toBeInstanceOf(EngineBusyError);
    expect(refused).toMatchObject({ status: 503, pool: 'test', queueDepth: 1 });
    expect((refused as EngineBusyError).retryAfterMs).toBeGreaterThan(0);
    expect(p.stats).toMatchObject({ queueDepth: 1, busy: 1, size: 1 });
    await expect(Promise.all([first, second])).resolves.toHaveLength(2);
    expect(p.stats).toMatchObject({ queueDepth: 0, busy: 0 });
  });

  it('never refuses the work of a pinned user, however full the queue', async () => {
    const p = pool({ size: 1, maxQueue: 0, inFlightPerWorker: 1 });
    const call = p.pin();
    const replies = await Promise.all(['x', 'y', 'z'].map((id) => call.run({ id, busyMs: 20 })));
    expect(replies.map((r) => r.id)).toEqual(['x', 'y', 'z']);
    await expect(p.run({ id: 'new', busyMs: 0 })).resolves.toMatchObject({ id: 'new' });
  });

  it('pins each user to the worker with the fewest pins, and runs its tasks there in order', async () => {
    const p = pool({ size: 2 });
    const pins = [p.pin(), p.pin(), p.pin(), p.pin()];
    expect(pins.map((pin) => pin.index)).toEqual([0, 1, 0, 1]);
    pins[0]!.release();
    pins[0]!.release(); // idempotent
    expect(p.pin().index).toBe(0);
    const a = await Promise.all([1, 2, 3].map((n) => pins[1]!.run({ id: `a${n}`, busyMs: 5 })));
    const b = await Promise.all([1, 2].map((n) => pins[2]!.run({ id: `b${n}`, busyMs: 5 })));
    expect(new Set(a.map((r) => r.thread)).size).toBe(1);
    expect(new Set(b.map((r) => r.thread)).size).toBe(1);
    expect(a[0]!.thread).not.toBe(b[0]!.thread);
    expect(a.at(-1)!.ran).toEqual(['a1', 'a2', 'a3']);
    expect(p.stats.pinned).toBe(4);
  });

  it('drops an aborted task that is still queued: it never runs, and its promise rejects at once', async () => {
    const p = pool({ size: 1, inFlightPerWorker: 1 });
    const controller = new AbortController();
    const blocker = p.run({ id: 'blocker', busyMs: 150 });
    const abandoned = p.run({ id: 'abandoned', busyMs: 0 }, { signal: controller.signal });
    controller.abort();
    await expect(abandoned).rejects.toMatchObject({ name: 'AbortError' });
    await blocker;
    const after = await p.run({ id: 'after', busyMs: 0 });
    expect(after.ran).toEqual(['blocker', 'after']);
  });

  it('spreads unpinned tasks over the workers', async () => {
    const p = pool({ size: 2, inFlightPerWorker: 1 });
    const replies = await Promise.all([1, 2].map((n) => p.run({ id: `t${n}`, busyMs: 100 })));
    expect(new Set(replies.map((r) => r.thread)).size).toBe(2);
  });

  it('with pinsBeforeStarting, fills a started worker that far before starting another', async () => {
    const p = pool({ size: 2, pinsBeforeStarting: 2 });
    const first = p.pin();
    await first.run({ id: 'a', busyMs: 0 });
    const second = p.pin();
    expect(second.index).toBe(first.index);
    expect(p.stats.running).toBe(1);
    const third = p.pin();
    expect(third.index).not.toBe(first.index);
    await third.run({ id: 'b', busyMs: 0 });
    expect(p.stats.running).toBe(2);
    expect(p.pin().index).toBe(third.index);
  });

  it('reports how long its workers worked, so a bench can tell the cores each engine uses', async () => {
    const p = pool({ size: 2 });
    expect(p.stats.activeMs).toBe(0);
    const started = performance.now();
    await Promise.all([p.run({ id: 'a', busyMs: 150 }), p.run({ id: 'b', busyMs: 150 })]);
    const wallMs = performance.now() - started;
    // Each worker was busy its task's 150 ms at least, and no longer than the run took.
    expect(p.stats.activeMs).toBeGreaterThanOrEqual(2 * 150 - 1);
    expect(p.stats.activeMs).toBeLessThanOrEqual(2 * wallMs + 1);
  });
});

describe('machineWorkers', () => {
  it('gives one worker per core, or per `coresPerWorker` cores, and never fewer than one', () => {
    expect(machineWorkers({}, 1, 8)).toBe(8);
    expect(machineWorkers({}, 2, 8)).toBe(4);
    expect(machineWorkers({}, 2, 2)).toBe(1);
    expect(machineWorkers({}, 2, 1)).toBe(1);
  });

  it('takes SHOAL_WORKERS for every pool, and refuses a value that is not a positive integer', () => {
    expect(machineWorkers({ SHOAL_WORKERS: '3' }, 2, 8)).toBe(3);
    expect(() => machineWorkers({ SHOAL_WORKERS: '0' })).toThrow(/SHOAL_WORKERS must be a positive integer, got "0"/);
  });

  it('reads other counts from the environment the same way (SHOAL_DECODERS_PER_WORKER)', () => {
    expect(countFromEnv({ SHOAL_DECODERS_PER_WORKER: '1' }, 'SHOAL_DECODERS_PER_WORKER')).toBe(1);
    expect(countFromEnv({}, 'SHOAL_DECODERS_PER_WORKER')).toBeUndefined();
    expect(() => countFromEnv({ SHOAL_DECODERS_PER_WORKER: '1.5' }, 'SHOAL_DECODERS_PER_WORKER')).toThrow(/SHOAL_DECODERS_PER_WORKER must be a positive integer/);
  });
});
