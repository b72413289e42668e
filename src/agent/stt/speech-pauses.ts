import type { UtteranceFrame } from '../contracts.js';

/** How much of a pause the recognizer hears, and when it is told of it. All durations in ms. */
export interface SpeechPausesOptions {
  /**
   * The recognizer hears at most this much quiet after the caller's last speech frame: later quiet frames
   * are held back, written if speech resumes and dropped at the endpoint. Whether or not the utterance is
   * decoded at the pause, the recognizer thus hears the same audio.
   */
  trailingQuietMs: number;
  /**
   * Once the trailing quiet has been heard and the endpoint is this close (the frames' `endpointInMs`), the
   * recognizer is told the caller paused, so it can decode the utterance before the endpoint; 0: never.
   */
  speechPausedLeadMs: number;
}

const nothingHeld: readonly UtteranceFrame[] = [];

/**
 * Where an utterance's frames go when the caller pauses (see `SpeechPausesOptions`). Frames that do not say
 * whether they hold speech (`speaking`, `endpointInMs`) are always written.
 */
export class SpeechPauses {
  private spoke = false;
  private quietMs = 0;
  private told = false;
  private held: UtteranceFrame[] = [];

  constructor(private readonly options: SpeechPausesOptions) {}

  /** Whether the frame is written now or held back. */
  next(frame: UtteranceFrame): 'write' | 'hold' {
    if (frame.speaking === undefined || frame.endpointInMs === undefined) return 'write';
    if (frame.speaking) {
      this.spoke = true;
      this.quietMs = 0;
      this.told = false;
      return 'write';
    }
    if (!this.spoke) return 'write';
    if (this.quietMs >= this.options.trailingQuietMs) {
      this.held.push(frame);
      return 'hold';
    }
    this.quietMs += (frame.samples.length * 1000) / frame.sampleRate;
    return 'write';
  }

  /**
   * Asked after each frame (once it is written or held): true once per pause, when the trailing quiet has
   * been heard and the endpoint is `speechPausedLeadMs` or less away.
   */
  pauseDue(frame: UtteranceFrame): boolean {
    const due =
      this.options.speechPausedLeadMs > 0 &&
      this.spoke &&
      !this.told &&
      frame.speaking === false &&
      this.quietMs >= this.options.trailingQuietMs &&
      frame.endpointInMs !== undefined &&
      frame.endpointInMs <= this.options.speechPausedLeadMs;
    if (due) this.told = true;
    return due;
  }

  /** The frames held back since the pause, in order; they are written before the frame that resumed speech. */
  release(): readonly UtteranceFrame[] {
    // Asked on every written frame: nothing to allocate when nothing is held.
    if (this.held.length === 0) return nothingHeld;
    const held = this.held;
    this.held = [];
    return held;
  }
}
