import type { Worker } from 'node:worker_threads';
import { WorkerClient } from '../worker-client.js';
import { EngineBusyError } from './errors.js';
import { checkPoolOptions, defaults, type EnginePoolOptions } from './options.js';

interface Task<Request, Reply> {
  body: Request;
  transfer: readonly ArrayBuffer[];
  resolve(reply: Reply): void;
  reject(error: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
  settled?: boolean;
}

interface Member<Request extends object, Reply extends { seq: number }> {
  readonly index: number;
  readonly client: WorkerClient<Request, Reply>;
  /** Pinned tasks waiting for this worker, in order. */
  readonly queue: Array<Task<Request, Reply>>;
  inFlight: number;
  pins: number;
  lastUsed: number;
}

export interface RunOptions {
  /** Aborting drops the task if it is still queued, and rejects its promise at once either way. */
  signal?: AbortSignal;
  /** Buffers moved to the worker instead of copied. */
  transfer?: readonly ArrayBuffer[];
}

/** What a pool is doing now, for metrics and load reports. */
export interface PoolStats {
  name: string;
  size: number;
  /** Workers started (they start on first use). */
  running: number;
  /** Tasks waiting for a worker. */
  queueDepth: number;
  /** Tasks handed to workers and not yet answered. */
  busy: number;
  /** Open pins (e.g. one per call's recognizer). */
  pinned: number;
  /** Milliseconds the running workers have spent working since they started (CPU-bound engines: CPU time). */
  activeMs: number;
}

/**
 * A worker bound to one user (e.g. a call's recognizer, whose decoder state lives in that worker). Its
 * tasks run in order on that worker and are never refused as overload; `release()` frees the pin.
 */
export interface PinnedWorker<Request, Reply> {
  readonly index: number;
  run(body: Request, options?: RunOptions): Promise<Reply>;
  release(): void;
}

/**
 * Worker threads sized to the machine, each started on first use, with a bounded queue. A task goes to the
 * least-loaded worker; a pin goes to the worker with the fewest pins. Pinned tasks are dispatched before
 * unpinned ones, so calls in progress are served before new requests. When every worker is full and
 * `maxQueue` unpinned tasks are waiting, the next one is refused at once with EngineBusyError.
 */
export class EnginePool<Request extends object, Reply extends { seq: number }> {
  /** Every pool made in this process, for metrics. */
  static readonly all = new Set<EnginePool<object, { seq: number }>>();
  readonly options: EnginePoolOptions;
  private readonly members: Array<Member<Request, Reply>>;
  /** Unpinned tasks waiting for any worker. */
  private readonly shared: Array<Task<Request, Reply>> = [];
  private uses = 0;

  constructor(start: (index: number) => Worker, options: Partial<EnginePoolOptions> & Pick<EnginePoolOptions, 'name'>) {
    this.options = { ...defaults, ...options };
    checkPoolOptions(this.options);
    this.members = Array.from({ length: this.options.size }, (_, index) => ({
      index,
      client: new WorkerClient<Request, Reply>(() => start(index), `${this.options.name} ${index}`),
      queue: [],
      inFlight: 0,
      pins: 0,
      lastUsed: 0,
    }));
    EnginePool.all.add(this as unknown as EnginePool<object, { seq: number }>);
  }

  get stats(): PoolStats {
    let queueDepth = this.shared.length;
    let busy = 0;
    let pinned = 0;
    let running = 0;
    let activeMs = 0;
    for (const m of this.members) {
      queueDepth += m.queue.length;
      busy += m.inFlight;
      pinned += m.pins;
      activeMs += m.client.activeMs;
      if (m.client.running) running++;
    }
    return { name: this.options.name, size: this.members.length, running, queueDepth, busy, pinned, activeMs };
  }

  /** Runs `body` on the least-loaded worker, or refuses it with EngineBusyError when the pool is full. */
  run(body: Request, options: RunOptions = {}): Promise<Reply> {
    const member = this.leastLoaded();
    if (member.inFlight >= this.options.inFlightPerWorker && this.shared.length >= this.options.maxQueue) {
      return Promise.reject(new EngineBusyError(this.options.name, this.shared.length, this.options.retryAfterMs));
    }
    return this.enqueue(this.shared, body, options);
  }

  /**
   * Binds a user to the worker with the fewest pins (then the least load); a started worker with fewer than
   * `pinsBeforeStarting` pins goes first, so another worker is started only when the started ones are that full.
   */
  pin(): PinnedWorker<Request, Reply> {
    const fewest = (members: Array<Member<Request, Reply>>) =>
      members.reduce((best, m) => (m.pins < best.pins || (m.pins === best.pins && load(m) < load(best)) ? m : best));
    const roomy = this.members.filter((m) => m.client.running && m.pins < this.options.pinsBeforeStarting);
    const member = fewest(roomy.length > 0 ? roomy : this.members);
    member.pins++;
    let released = false;
    return {
      index: member.index,
      run: (body, options = {}) => this.enqueue(member.queue, body, options),
      release: () => {
        if (released) return;
        released = true;
        member.pins--;
      },
    };
  }

  /** Sends `body` to every started worker (e.g. to free what they hold) and waits for all replies. */
  async broadcast(body: Request): Promise<Reply[]> {
    return Promise.all(this.members.filter((m) => m.client.running).map((m) => m.client.request(body)));
  }

  /** Stops every worker; queued tasks are rejected, and the next task starts workers again. */
  async stop(): Promise<void> {
    const stopped = new Error(`the ${this.options.name} pool was stopped`);
    for (const queue of [this.shared, ...this.members.map((m) => m.queue)]) {
      for (const task of queue.splice(0)) settle(task, () => task.reject(stopped));
    }
    await Promise.all(this.members.map((m) => m.client.stop()));
  }

  private enqueue(queue: Array<Task<Request, Reply>>, body: Request, options: RunOptions): Promise<Reply> {
    const { signal, transfer = [] } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Reply>((resolve, reject) => {
      const task: Task<Request, Reply> = { body, transfer, resolve, reject, signal };
      if (signal) {
        task.onAbort = () => {
          const at = queue.indexOf(task);
          if (at >= 0) queue.splice(at, 1);
          settle(task, () => reject(signal.reason));
        };
        signal.addEventListener('abort', task.onAbort, { once: true });
      }
      queue.push(task);
      this.dispatch();
    });
  }

  /** Hands queued tasks to workers with free slots: each worker's pinned tasks first, then shared ones. */
  private dispatch(): void {
    for (const member of [...this.members].sort((a, b) => load(a) - load(b))) {
      while (member.inFlight < this.options.inFlightPerWorker) {
        const task = member.queue.shift() ?? this.shared.shift();
        if (!task) break;
        this.start(member, task);
      }
    }
  }

  private start(member: Member<Request, Reply>, task: Task<Request, Reply>): void {
    member.inFlight++;
    member.lastUsed = ++this.uses;
    member.client.request(task.body, task.transfer).then(
      (reply) => settle(task, () => task.resolve(reply)),
      (error: unknown) => settle(task, () => task.reject(error)),
    ).finally(() => {
      member.inFlight--;
      this.dispatch();
    });
  }

  private leastLoaded(): Member<Request, Reply> {
    return this.members.reduce((best, m) => {
      const [a, b] = [load(m), load(best)];
      return a < b || (a === b && m.lastUsed < best.lastUsed) ? m : best;
    });
  }
}

function load(member: { inFlight: number; queue: unknown[] }): number {
  return member.inFlight + member.queue.length;
}

/** Settles a task once, detaching its abort listener. */
function settle<Request, Reply>(task: Task<Request, Reply>, outcome: () => void): void {
  if (task.settled) return;
  task.settled = true;
  if (task.onAbort) task.signal?.removeEventListener('abort', task.onAbort);
  outcome();
}
