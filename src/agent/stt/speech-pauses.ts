import type { UtteranceFrame } from '../contracts.js';

/**
 * Where an utterance's frames go when the caller pauses. Once the caller has spoken and then gone quiet
 * with the endpoint `leadMs` or less away, the recognizer is told (`paused`: it may decode the utterance
 * now), and quiet frames are held back from then on (that one included); the next speech frame lets them
 * through (`write`, after `release()`). Frames that do not say whether they hold speech are always written.
 */
const nothingHeld: readonly UtteranceFrame[] = [];

export class SpeechPauses {
  private spoke = false;
  private paused = false;
  private held: UtteranceFrame[] = [];

  constructor(private readonly leadMs: number) {}

  next(frame: UtteranceFrame): 'write' | 'paused' | 'held' {
    if (this.leadMs <= 0 || frame.speaking === undefined || frame.endpointInMs === undefined) return 'write';
    if (frame.speaking) {
      this.spoke = true;
      this.paused = false;
      return 'write';
    }
    if (this.paused) {
      this.held.push(frame);
      return 'held';
    }
    if (!this.spoke || frame.endpointInMs > this.leadMs) return 'write';
    this.paused = true;
    this.held.push(frame);
    return 'paused';
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
