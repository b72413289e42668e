import { EngineUnavailableError } from '../types.js';
import { startModuleWorker } from '../module-worker.js';
import { WorkerClient } from '../worker-client.js';
import { installHint, type PocketSphinxOptions } from './options.js';
import type { DecoderReply, DecoderRequest } from './protocol.js';

type RequestBody = DecoderRequest extends infer R ? (R extends DecoderRequest ? Omit<R, 'seq'> : never) : never;
type Success = Extract<DecoderReply, { ok: true }>;

/** The main thread's handle on the decoder worker (one per configuration per process). */
export class DecoderHost {
  private readonly client: WorkerClient<RequestBody, DecoderReply>;
  private leases = 0;
  private static readonly byOptions = new Map<string, DecoderHost>();
  /** Milliseconds the most recent decoder construction took in the worker (model load). */
  lastDecoderInitMs: number | undefined;

  constructor(options: PocketSphinxOptions) {
    this.client = new WorkerClient(() => startModuleWorker(import.meta.url, 'decoder-worker', { options }), 'pocketsphinx');
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

  newLease(): number {
    return ++this.leases;
  }

  async request(body: RequestBody): Promise<Success> {
    const reply = await this.client.request(body);
    if (reply.ok) {
      if (reply.initMs !== undefined) this.lastDecoderInitMs = reply.initMs;
      return reply;
    }
    if (reply.unavailable) throw new EngineUnavailableError('pocketsphinx', `${reply.message}. Install it with: ${installHint}`);
    throw new Error(`pocketsphinx: ${reply.message}`);
  }

  /** Returns a recognizer's decoder to the pool; nothing to do when the worker has been stopped. */
  async release(lease: number): Promise<void> {
    if (this.client.running) await this.request({ op: 'close', lease });
  }

  /** Frees every decoder and the language model, then stops the worker; later requests start a new one. */
  async shutdown(): Promise<void> {
    if (this.client.running) await this.request({ op: 'dispose' }).catch(() => undefined);
    await this.client.stop();
  }
}
