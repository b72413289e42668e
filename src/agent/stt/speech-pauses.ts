import { frameDurationMs } from '../../audio/index.js';
import type { UtteranceFrame } from '../contracts.js';

/** How much of a pause the recognizer hears, and when it is told of it. All durations in ms. */
export interface SpeechPausesOptions {
  /**
   * After the caller's last speech frame the recognizer hears quiet frames until it has heard at least this
   * much quiet and the endpoint is `speechPausedLeadMs` or less away; later quiet frames are held back,
   * written if speech resumes and dropped at the endpoint. Whether or not the utterance is decoded at the
   * pause, the recognizer thus hears the same audio.
   */
  trailingQuietMs: number;
  /** The time left before the endpoint from which quiet frames are held back (see `trailingQuietMs`). */
  speechPausedLeadMs: number;
  /** Whether the recognizer is told of the pause when frames start to be held back (to decode then). */
  decodeAtPause: boolean;
}

const nothingHeld: readonly UtteranceFrame[] = [];

/**
 * Where an utterance's frames go when the caller pauses (see `SpeechPausesOptions`). Frames that do not say
 * whether they hold speech (`speaking`, `endpointInMs`) are always written.
 */
export class SpeechPauses {
  private spoke = false;
  private quietMs = 0;
  private holding = false;
  private due = false;
  private held: UtteranceFrame[] = [];

  constructor(private readonly options: SpeechPausesOptions) {}

  /** Whether the frame is written now or held back. */
  next(frame: UtteranceFrame): 'write' | 'hold' {
    this.due = false;
    if (frame.speaking === undefined || frame.endpointInMs === undefined) return 'write';
    if (frame.speaking) {
      this.spoke = true;
      this.quietMs = 0;
      this.holding = false;
      return 'write';
    }
    if (!this.spoke) return 'write';
    if (this.holding) {
      this.held.push(frame);
      return 'hold';
    }
    this.quietMs += frameDurationMs(frame);
    this.holding = this.quietMs >= this.options.trailingQuietMs && frame.endpointInMs <= this.options.speechPausedLeadMs;
    this.due = this.holding && this.options.decodeAtPause;
    return 'write';
  }

  /** Asked after `next(frame)`: whether the recognizer should now be told the caller paused (once per pause). */
  pauseDue(): boolean {
    return this.due;
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
