import { machineWorkers, EnginePool } from '../pool/index.js';
import { startModuleWorker } from '../module-worker.js';
import { EngineUnavailableError } from '../types.js';
import { sileroModelPath, type SileroStep } from './silero-session.js';
import type { SileroReply, SileroRequest } from './silero-protocol.js';

type Body = SileroRequest extends infer R ? (R extends SileroRequest ? Omit<R, 'seq'> : never) : never;

/** A detector's handle on its VAD worker: steps run there in order and are never refused (the call was admitted). */
export interface SileroChannel {
  readonly ready: Promise<unknown>;
  run(input: Float32Array, state: Float32Array): Promise<SileroStep>;
  release(): void;
}

/**
 * Silero VAD off the event loop: each step (~1 ms of CPU, 31 per second of call) runs on a worker thread, so
 * many calls' detectors do not take turns with the calls' own work on the main thread. One worker per 2
 * cores (a call needs ~35 ms of CPU per second for VAD); a detector is pinned to the worker with the fewest.
 */
export class SileroPool {
  private static instance: SileroPool | undefined;
  private readonly pool: EnginePool<Body, SileroReply>;

  constructor(modelPath = sileroModelPath(), size = machineWorkers(process.env, 2)) {
    this.pool = new EnginePool(() => startModuleWorker(import.meta.url, 'silero-worker', { modelPath }), { name: 'silero-vad', size });
  }

  static shared(): SileroPool {
    SileroPool.instance ??= new SileroPool();
    return SileroPool.instance;
  }

  channel(): SileroChannel {
    const worker = this.pool.pin();
    const ready = this.check(worker.run({ op: 'load' }));
    return {
      ready,
      run: async (input, state) => {
        const reply = await this.check(worker.run({ op: 'infer', input, state }, { transfer: [input.buffer as ArrayBuffer, state.buffer as ArrayBuffer] }));
        return { probability: reply.probability!, state: reply.state! };
      },
      release: () => worker.release(),
    };
  }

  /** Stops the workers; the next detector starts them again. */
  stop(): Promise<void> {
    return this.pool.stop();
  }

  private async check(pending: Promise<SileroReply>): Promise<Extract<SileroReply, { ok: true }>> {
    const reply = await pending;
    if (reply.ok) return reply;
    if (reply.unavailable) throw new EngineUnavailableError('silero-vad', reply.message);
    throw new Error(`silero-vad: ${reply.message}`);
  }
}
