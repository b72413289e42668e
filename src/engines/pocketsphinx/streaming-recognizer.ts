import type { Expectation } from '../../speech/index.js';
import type { Hypothesis, StreamingRecognizer } from '../types.js';
import type { DecoderHost, DecoderLease } from './decoder-host.js';

const empty: Hypothesis = { text: '', words: [] };

/** One recognizer = one decoder in one worker thread, leased on creation and returned on close. */
export class PocketSphinxRecognizer implements StreamingRecognizer {
  private closed = false;
  private readonly lease: DecoderLease;
  private readonly opened: Promise<unknown>;

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
    await this.lease.request({ op: 'write', pcm: pcm16k });
  }

  async expect(expectations: readonly Expectation[] | undefined): Promise<void> {
    this.assertOpen();
    await this.opened;
    await this.lease.request({ op: 'expect', expectations });
  }

  async partial(): Promise<Hypothesis> {
    this.assertOpen();
    await this.opened;
    return (await this.lease.request({ op: 'partial' })).hypothesis ?? empty;
  }

  async speechPaused(): Promise<void> {
    this.assertOpen();
    await this.opened;
    await this.lease.request({ op: 'speech-paused' });
  }

  async finish(): Promise<Hypothesis> {
    this.assertOpen();
    await this.opened;
    return (await this.lease.request({ op: 'finish' })).hypothesis ?? empty;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.opened.then(
      () => this.lease.release().catch(() => undefined),
      () => this.lease.release().catch(() => undefined),
    );
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('recognizer is closed');
  }
}
