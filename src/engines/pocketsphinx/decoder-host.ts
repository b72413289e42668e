import { EngineUnavailableError } from '../types.js';
import { startModuleWorker } from '../module-worker.js';
import { EnginePool, type PinnedWorker, type RunOptions, type EnginePoolOptions } from '../pool/index.js';
import { installHint, type PocketSphinxOptions } from './options.js';
import type { Expectation } from '../../speech/index.js';
import type { DecoderReply, DecoderRequest } from './protocol.js';

type RequestBody = DecoderRequest extends infer R ? (R extends DecoderRequest ? Omit<R, 'seq'> : never) : never;
type Success = Extract<DecoderReply, { ok: true }>;
type LeaseRequest = RequestBody extends infer R ? (R extends { lease: number } ? Omit<R, 'lease'> : never) : never;

/** One recognizer's decoder: it lives in one worker thread, so every request of the lease goes there. */
export interface DecoderLease {
  request(body: LeaseRequest): Promise<Success>;
  /** Frees the pin and returns the decoder to its worker's idle pool. */
  release(): Promise<void>;
}

/**
 * The main thread's handle on the decoder workers (one pool per configuration per process). Each recognizer
 * is pinned to a worker for the whole call: a started worker takes `callsPerWorker` (2) before another one is started (each
 * holds ~130 MB of model, and a call whose last utterance is still being finished keeps its pin for a moment),
 * then the worker with the fewest;
 * whole-buffer transcriptions go to the least-loaded worker and are refused (EngineBusyError) when the
 * pool's queue is full.
 */
export class DecoderHost {
  private readonly pool: EnginePool<RequestBody, DecoderReply>;
  private leases = 0;
  private static readonly byOptions = new Map<string, DecoderHost>();
  /** Milliseconds the most recent decoder construction took in a worker (model load). */
  lastDecoderInitMs: number | undefined;

  constructor(options: PocketSphinxOptions, pool: Partial<Omit<EnginePoolOptions, 'name'>> = {}) {
    this.pool = new EnginePool((index) => startModuleWorker(import.meta.url, 'decoder-worker', { options, index }), { name: 'pocketsphinx', pinsBeforeStarting: options.callsPerWorker, ...pool });
  }

  static shared(options: PocketSphinxOptions): DecoderHost {
    const key = JSON.stringify(options);
    let host = DecoderHost.byOptions.get(key);
    if (!host) {
      host = new DecoderHost(options);
      DecoderHost.byOptions.set(key, host);
    }
    return host;
  }

  /** Worker threads decoding. */
  get workers(): number {
    return this.pool.options.size;
  }

  /** Opens a decoder on the worker with the fewest open ones; the open reply carries the model load time. */
  lease(telephoneBand = false): { lease: DecoderLease; opened: Promise<Success> } {
    const worker = this.pool.pin();
    const id = ++this.leases;
    const lease: DecoderLease = {
      request: (body) => this.check(worker.run({ ...body, lease: id } as RequestBody)),
      release: async () => {
        // The pin goes at once, so a call starting meanwhile does not count this one and start another worker;
        // the close still runs on this worker after the lease's earlier requests.
        worker.release();
        await this.check(worker.run({ op: 'close', lease: id }));
      },
    };
    return { lease, opened: this.check(worker.run({ op: 'open', lease: id, telephoneBand })) };
  }

  /** Decodes a whole buffer on the least-loaded worker, also against a grammar of `expectations` when given. */
  transcribe(pcm: Int16Array, options: RunOptions & { expectations?: readonly Expectation[]; telephoneBand?: boolean } = {}): Promise<Success> {
    const { expectations, telephoneBand, ...run } = options;
    return this.check(this.pool.run({ op: 'transcribe', pcm, telephoneBand, ...(expectations ? { expectations } : {}) }, run));
  }

  /** Frees every decoder and the language model in each worker, then stops them; later requests start new ones. */
  async shutdown(): Promise<void> {
    await this.pool.broadcast({ op: 'dispose' }).catch(() => undefined);
    await this.pool.stop();
  }

  private async check(pending: Promise<DecoderReply>): Promise<Success> {
    const reply = await pending;
    if (reply.ok) {
      if (reply.initMs !== undefined) this.lastDecoderInitMs = reply.initMs;
      return reply;
    }
    if (reply.unavailable) throw new EngineUnavailableError('pocketsphinx', `${reply.message}. Install it with: ${installHint}`);
    throw new Error(`pocketsphinx: ${reply.message}`);
  }
}
