import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import { Resampler, type AudioFrame } from '../audio/index.js';

/** Agent audio pausing this long ends a stretch of speech: the resampler's tail is sent. */
const idleFlushMs = 60;

/**
 * Converts agent audio to a transport's wire rate at its edge, keeping frame order. Frames already at the
 * wire rate pass straight through; others go through a resampler kept per input rate. `reset()` (barge-in)
 * drops frames still being converted.
 */
export class PlayoutRateConverter {
  private resampler: Resampler | undefined;
  private pending: Promise<void> = Promise.resolve();
  private queued = 0;
  private generation = 0;
  private flushTimer: Subscription | undefined;

  constructor(
    readonly rate: number,
    private readonly deliver: (samples: Int16Array) => void,
    private readonly fail: (error: unknown) => void,
    /** Runs the idle flush: wall time, or the call's virtual clock when a driver runs the call. */
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {}

  push(frame: AudioFrame): void {
    if (frame.sampleRate === this.rate && this.queued === 0) {
      this.deliver(frame.samples);
      return;
    }
    const generation = this.generation;
    this.queued++;
    this.pending = this.pending
      .then(async () => {
        if (generation !== this.generation) return;
        if (frame.sampleRate === this.rate) return this.deliver(frame.samples);
        if (this.resampler?.inputRate !== frame.sampleRate) {
          this.resampler?.destroy();
          this.resampler = undefined;
          this.resampler = await Resampler.create(frame.sampleRate, this.rate);
        }
        if (generation === this.generation) this.deliver(this.resampler.process(frame.samples));
      })
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        this.queued--;
        this.scheduleFlush(generation);
      });
  }

  /** Resolves once the frames pushed so far have been delivered (or dropped by `reset()`). */
  async idle(): Promise<void> {
    for (let pending = this.pending; ; pending = this.pending) {
      await pending;
      if (pending === this.pending) return;
    }
  }

  /** The filter holds a few ms of audio back; when no more comes for a while, that tail is played too. */
  private scheduleFlush(generation: number): void {
    this.flushTimer?.unsubscribe();
    this.flushTimer = this.scheduler.schedule(() => {
      if (generation !== this.generation || this.queued > 0 || !this.resampler) return;
      const tail = this.resampler.flush();
      if (tail.length > 0) this.deliver(tail);
    }, idleFlushMs);
  }

  /** Drops frames not yet converted and restarts the resampler's filter. */
  reset(): void {
    this.flushTimer?.unsubscribe();
    this.generation++;
    this.resampler?.flush();
  }

  close(): void {
    this.reset();
    void this.pending.finally(() => {
      this.resampler?.destroy();
      this.resampler = undefined;
    });
  }
}
