import { asyncScheduler, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';
/** Options of {@link PacedPlayout}. */
export interface PacedPlayoutOptions {
  sampleRate: number;
  /** How far ahead of real time audio is sent, so the page's jitter buffer never starves. */
  leadMs: number;
  /** Size of each audio frame sent. */
  chunkMs: number;
  /** How often the queue is checked. */
  tickMs: number;
}

export const pacedPlayoutDefaults: Omit<PacedPlayoutOptions, 'sampleRate'> = { leadMs: 120, chunkMs: 20, tickMs: 10 };

/**
 * Sends queued agent audio at real-time pace (a little ahead), so that `clear()` can drop what the
 * page has not received yet, and so the play-out position is known without asking the page.
 */
export class PacedPlayout {
  private readonly options: PacedPlayoutOptions;
  private queue: Int16Array[] = [];
  private timer: Subscription | undefined;
  private segmentStartMs = 0;
  private segmentSentSamples = 0;
  private completedMs = 0;
  private closed = false;

  constructor(
    private readonly send: (chunk: Int16Array) => void,
    options: Partial<PacedPlayoutOptions> & { sampleRate: number },
    private readonly now: () => number = () => performance.now(),
    /** Runs the pacing ticks: wall time, or the call's virtual clock when a driver runs the call. */
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {
    this.options = { ...pacedPlayoutDefaults, ...options };
  }

  enqueue(samples: Int16Array): void {
    if (this.closed || samples.length === 0) return;
    if (!this.segmentActive()) {
      this.completedMs += this.segmentSentMs();
      this.segmentStartMs = this.now();
      this.segmentSentSamples = 0;
    }
    this.queue.push(samples);
    this.pump();
    this.timer ??= this.scheduler.schedule(function (this: SchedulerAction<PacedPlayout>, playout) {
      playout!.pump();
      if (playout!.timer) this.schedule(playout, playout!.options.tickMs);
    }, this.options.tickMs, this);
  }

  /** Drops all audio not yet sent and restarts the played-out count. */
  clear(): void {
    this.queue = [];
    this.stopTimer();
    this.completedMs = 0;
    this.segmentSentSamples = 0;
    this.segmentStartMs = this.now();
  }

  /** Ms of audio played out since the last `clear()`, by the real-time clock the audio was paced against. */
  playedMs(): number {
    const segmentPlayed = Math.min(this.segmentSentMs(), Math.max(0, this.now() - this.segmentStartMs));
    return this.completedMs + segmentPlayed;
  }

  /** Ms of audio queued or in flight that has not played out yet. */
  pendingMs(): number {
    const queued = this.queue.reduce((sum, chunk) => sum + chunk.length, 0);
    const inFlight = Math.max(0, this.segmentSentMs() - (this.now() - this.segmentStartMs));
    return (queued * 1000) / this.options.sampleRate + inFlight;
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    this.stopTimer();
  }

  private pump(): void {
    const chunkSamples = Math.round((this.options.chunkMs * this.options.sampleRate) / 1000);
    const horizonMs = this.now() - this.segmentStartMs + this.options.leadMs;
    while (this.queue.length > 0 && this.segmentSentMs() < horizonMs) {
      const head = this.queue[0]!;
      const chunk = head.subarray(0, chunkSamples);
      if (chunk.length === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(chunkSamples);
      this.segmentSentSamples += chunk.length;
      this.send(chunk);
    }
    if (this.queue.length === 0) this.stopTimer();
  }

  private segmentActive(): boolean {
    return this.queue.length > 0 || this.now() - this.segmentStartMs < this.segmentSentMs();
  }

  private segmentSentMs(): number {
    return (this.segmentSentSamples * 1000) / this.options.sampleRate;
  }

  private stopTimer(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
  }
}
