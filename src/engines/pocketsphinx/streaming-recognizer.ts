import type { Expectation } from '../../speech/index.js';
import type { Hypothesis, StreamingRecognizer } from '../types.js';
import type { DecoderHost, DecoderLease } from './decoder-host.js';

const empty: Hypothesis = { text: '', words: [] };

/**
 * One recognizer = one decoder in one worker thread, leased on creation and returned on close. A write resolves
 * once its audio is on its way: the worker runs a lease's requests in order, so the next `partial()`,
 * `speechPaused()` or `finish()` hears it, and a write that failed fails that request. The caller thus runs on
 * while the worker decodes (a call on a virtual clock does not wait for each frame's hop).
 */
export class PocketSphinxRecognizer implements StreamingRecognizer {
  private closed = false;
  private readonly lease: DecoderLease;
  private readonly opened: Promise<unknown>;
  /** Settles when the last write so far (and so every earlier one) has been decoded or has failed. */
  private lastWrite: Promise<void> = Promise.resolve();
  /** The first write that failed. */
  private failure: unknown;

  constructor(host: DecoderHost, telephoneBand = false) {
    const { lease, opened } = host.lease(telephoneBand);
    this.lease = lease;
    this.opened = opened;
    // A failed open surfaces on the next call; this keeps it from being reported as unhandled meanwhile.
    this.opened.catch(() => undefined);
  }

  async write(pcm16k: Int16Array): Promise<void> {
    this.assertOpen();
    await this.opened;
    if (pcm16k.length === 0) return;
    // A failure is reported by the next request that reads the decoder (see `read`).
    this.lastWrite = this.lease.request({ op: 'write', pcm: pcm16k }).then(
      () => undefined,
      (error: unknown) => {
        this.failure ??= error;
      },
    );
  }

  async expect(expectations: readonly Expectation[] | undefined): Promise<void> {
    this.assertOpen();
    await this.opened;
    await this.lease.request({ op: 'expect', expectations });
  }

  async partial(): Promise<Hypothesis> {
    this.assertOpen();
    await this.opened;
    return (await this.read({ op: 'partial' })).hypothesis ?? empty;
  }

  async speechPaused(): Promise<void> {
    this.assertOpen();
    await this.opened;
    await this.read({ op: 'speech-paused' });
  }

  async finish(): Promise<Hypothesis> {
    this.assertOpen();
    await this.opened;
    return (await this.read({ op: 'finish' })).hypothesis ?? empty;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.opened.then(
      () => this.lease.release().catch(() => undefined),
      () => this.lease.release().catch(() => undefined),
    );
  }

  /** A request that reads what the decoder heard: it fails when one of the writes before it did. */
  private async read(body: { op: 'partial' | 'speech-paused' | 'finish' }) {
    const reply = this.lease.request(body);
    reply.catch(() => undefined);
    await this.lastWrite;
    if (this.failure !== undefined) throw this.failure;
    return reply;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('recognizer is closed');
  }
}
