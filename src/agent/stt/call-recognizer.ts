import type { Hypothesis, StreamingRecognizer } from '../../engines/index.js';
import type { Expectation } from '../../speech/index.js';

/**
 * One streaming recognizer shared by the utterances of one call, made on first use. Its operations run
 * one after another in the order they were asked for, across utterances, so the next utterance's audio
 * reaches the decoder only after the previous one has been finished. The decoder's cepstral mean thus
 * carries from one utterance to the next, as live CMN intends.
 */
export class CallRecognizer {
  private recognizer: StreamingRecognizer | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Audio written since the last `finish()`: an utterance is open in the decoder. */
  private open = false;
  private released = false;
  private expectations: readonly Expectation[] | undefined;

  constructor(private readonly create: () => StreamingRecognizer) {}

  /** Whether `release()` has been called; nothing more may be queued after it. */
  get isReleased(): boolean {
    return this.released;
  }

  /** `cancelled` is asked when the write's turn comes: a given-up utterance's backlog is skipped. */
  write(pcm: Int16Array, cancelled: () => boolean = () => false): Promise<void> {
    return this.run(async (r) => {
      if (cancelled()) return;
      this.open = true;
      await r.write(pcm);
    });
  }

  /** What the caller is expected to say from the next utterance on; kept for a recognizer made later. */
  expect(expectations: readonly Expectation[] | undefined): Promise<void> {
    this.expectations = expectations;
    // Never makes the recognizer: expectations often come before the caller's first frame, and the recognizer
    // is made for the caller's line (a telephone line starts from the telephone cepstral mean).
    return this.run(async (r) => {
      await r.expect?.(expectations);
    }, { create: false });
  }

  partial(cancelled: () => boolean = () => false): Promise<Hypothesis | undefined> {
    return this.run(async (r) => (cancelled() ? undefined : r.partial()));
  }

  /** The caller stopped speaking: a recognizer that can decodes the utterance now (see `StreamingRecognizer`). */
  speechPaused(): Promise<void> {
    return this.run(async (r) => {
      await r.speechPaused?.();
    });
  }

  finish(): Promise<Hypothesis> {
    return this.run(async (r) => {
      this.open = false;
      return r.finish();
    });
  }

  /** Ends an utterance that was given up half-way, so the next one starts on a finished decoder. */
  abandonUtterance(): Promise<void> {
    return this.queued(async () => {
      if (!this.open || !this.recognizer) return;
      this.open = false;
      await this.recognizer.finish();
    });
  }

  /** Finishes any open utterance, then returns the recognizer to its engine. */
  release(): void {
    if (this.released) return;
    const done = this.abandonUtterance();
    this.released = true;
    void done.catch(() => undefined).finally(() => this.drop());
  }

  private run<T>(action: (recognizer: StreamingRecognizer) => Promise<T>): Promise<T>;
  private run(action: (recognizer: StreamingRecognizer) => Promise<void>, options: { create: false }): Promise<void>;
  private run<T>(action: (recognizer: StreamingRecognizer) => Promise<T>, { create = true } = {}): Promise<T | void> {
    if (this.released) return Promise.reject(new Error('the call speech recognizer was released'));
    return this.queued(async () => {
      if (!this.recognizer) {
        if (!create) return;
        this.recognizer = this.create();
        if (this.expectations) await this.recognizer.expect?.(this.expectations);
      }
      return action(this.recognizer);
    });
  }

  private queued<T>(action: () => Promise<T>): Promise<T> {
    const result = this.queue.then(async () => {
      try {
        return await action();
      } catch (error) {
        // A decoder that failed mid-way is in an unknown state: the next utterance gets a new one.
        this.drop();
        throw error;
      }
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  private drop(): void {
    this.open = false;
    this.recognizer?.close();
    this.recognizer = undefined;
  }
}
