import { availableParallelism } from 'node:os';

/** How one pool of worker threads is sized and bounded. */
export interface EnginePoolOptions {
  /** Names the pool in errors and metrics, e.g. "pocketsphinx". */
  name: string;
  /** Worker threads; default: one per core (`SHOAL_WORKERS` overrides it for every pool). */
  size: number;
  /**
   * Unpinned tasks allowed to wait for a worker; one more is refused with EngineBusyError. Pinned tasks
   * (work of a call already admitted) are never refused: the call was accepted, so its work is owed.
   */
  maxQueue: number;
  /** Tasks handed to one worker at a time; the rest wait in the pool's queue, where an abort drops them. */
  inFlightPerWorker: number;
  /** The Retry-After suggested when the queue is full. */
  retryAfterMs: number;
  /**
   * Pins a started worker takes before `pin()` starts another one (after that, pins go to the worker with the
   * fewest). 1 spreads at once; more keeps an engine whose workers each hold a large model in fewer threads.
   */
  pinsBeforeStarting: number;
}

/**
 * Worker threads per pool on this machine: `SHOAL_WORKERS` when set, else one per `coresPerWorker` cores (at
 * least one). An engine that needs a small share of a core per call (speech synthesis) takes 2 cores per worker,
 * so a 2-core machine holds one copy of its model instead of two.
 */
export function machineWorkers(env: NodeJS.ProcessEnv = process.env, coresPerWorker = 1, cores = availableParallelism()): number {
  return countFromEnv(env, 'SHOAL_WORKERS') ?? Math.max(1, Math.floor(cores / coresPerWorker));
}

/** A positive integer set in the environment variable `name`, or undefined when it is unset or empty. */
export function countFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const configured = env[name];
  if (configured === undefined || configured === '') return undefined;
  const count = Number(configured);
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`${name} must be a positive integer, got "${configured}"`);
  return count;
}

export const defaults: Omit<EnginePoolOptions, 'name'> = {
  size: machineWorkers(),
  maxQueue: 64,
  inFlightPerWorker: 4,
  retryAfterMs: 1000,
  pinsBeforeStarting: 1,
};

export function checkPoolOptions(options: EnginePoolOptions): void {
  for (const key of ['size', 'inFlightPerWorker', 'pinsBeforeStarting'] as const) {
    if (!Number.isInteger(options[key]) || options[key] < 1) throw new RangeError(`${key} must be a positive integer, got ${options[key]}`);
  }
  if (!Number.isInteger(options.maxQueue) || options.maxQueue < 0) {
    throw new RangeError(`maxQueue must be a non-negative integer, got ${options.maxQueue}`);
  }
}
