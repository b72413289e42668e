import type { Expectation } from '../../agent/expectations.js';
import type { Hypothesis, StreamingRecognizer } from '../types.js';
import type { DecoderHost } from './decoder-host.js';

const empty: Hypothesis = { text: '', words: [] };

/** One recognizer = one decoder in the worker, leased on creation and returned on close. */
export class PocketSphinxRecognizer implements StreamingRecognizer {
  private closed = false;
  private readonly opened: Promise<unknown>;

  constructor(
    private readonly host: DecoderHost,
    private readonly lease: number,
    telephoneBand = false,
  ) {
    this.opened = host.request({ op: 'open', lease, telephoneBand });
    // A failed open surfaces on the next call; this keeps it from being reported as unhandled meanwhile.
    this.opened.catch(() => undefined);
  }

  async write(pcm16k: Int16Array): Promise<void> {
    this.assertOpen();
    await this.opened;
    if (pcm16k.length === 0) return;
    await this.host.request({ op: 'write', lease: this.lease, pcm: pcm16k });
  }

  async expect(expectations: readonly Expectation[] | undefined): Promise<void> {
    this.assertOpen();
    await this.opened;
    await this.host.request({ op: 'expect', lease: this.lease, expectations });
  }

  async partial(): Promise<Hypothesis> {
    this.assertOpen();
    await this.opened;
    return (await this.host.request({ op: 'partial', lease: this.lease })).hypothesis ?? empty;
  }

  async finish(): Promise<Hypothesis> {
    this.assertOpen();
    await this.opened;
    return (await this.host.request({ op: 'finish', lease: this.lease })).hypothesis ?? empty;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.opened.then(
      () => this.host.release(this.lease).catch(() => undefined),
      () => undefined,
    );
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('recognizer is closed');
  }
}
