import { Observable, type OperatorFunction, type Subscription } from 'rxjs';
import type { AudioFrame } from '../audio/index.js';
import { frameDurationMs } from '../audio/index.js';
import type { Clock } from './clock.js';
import { sharedTicks } from './shared-ticks.js';

/** Where paced audio goes: the part of a Transport the playout needs. */
export interface PlayoutSink {
  play(frame: AudioFrame): void;
  clear(): void;
  /** Ms the far end has played since the last `clear()` (e.g. by a carrier's mark echoes), when the sink knows. */
  playedMs?(): number;
  /** Ms handed over but not played yet, when the sink knows. */
  pendingMs?(): number;
}

export interface PlayoutOptions {
  /** How far ahead of real time audio is handed to the transport (its jitter buffer). */
  leadMs: number;
  /** Pacing tick; the replies playing on one clock share its timer. */
  tickMs: number;
  /** Audio of one reply kept for resuming after a false interruption; more is an error. */
  maxBufferedMs: number;
}

export const defaults: PlayoutOptions = { leadMs: 80, tickMs: 20, maxBufferedMs: 180_000 };

export type PlayoutControl = 'pause' | 'resume';

export type PlayoutEvent =
  /** The first sample of the reply was handed to the transport at clock time `atMs`. */
  | { type: 'first-audio'; atMs: number }
  | { type: 'paused'; playedMs: number }
  | { type: 'resumed'; fromMs: number }
  /** Everything was played out; `playedMs` is the reply's length. */
  | { type: 'finished'; playedMs: number };

interface Stored {
  frame: AudioFrame;
  startMs: number;
  durationMs: number;
}

/**
 * Hands reply audio to the sink at real-time pace (a bounded lead ahead of the clock), pausable and resumable
 * from where playout stopped. `playedMs()` of the returned state tells how much the caller has heard: by the
 * clock, or less when the sink's own count (a carrier's mark echoes) says the caller has heard less so far.
 */
export class PacedPlayout {
  private readonly frames: Stored[] = [];
  /** Index of the stored frame the last piece came from. */
  private cursor = 0;
  private totalMs = 0;
  private sentMs = 0;
  private anchorMs = 0;
  private started = false;
  private paused = false;
  private sourceDone = false;
  /** The sink's position (played + pending) when this reply's audio started or resumed, and the reply's position then. */
  private sinkStartMs = 0;
  private replyStartMs = 0;

  constructor(
    private readonly sink: PlayoutSink,
    private readonly clock: Clock,
    private readonly options: PlayoutOptions,
    private readonly emit: (event: PlayoutEvent) => void,
  ) {}

  /** Milliseconds of this reply the caller has heard so far. */
  playedMs(): number {
    if (!this.started) return 0;
    if (this.paused) return this.sentMs;
    const byClock = Math.max(0, Math.min(this.sentMs, this.clock.now() - this.anchorMs));
    if (!this.sink.playedMs) return byClock;
    const bySink = this.replyStartMs + Math.max(0, this.sink.playedMs() - this.sinkStartMs);
    return Math.min(byClock, bySink);
  }

  /** Where the sink is now: what it has played plus what it still holds. */
  private sinkPositionMs(): number {
    return (this.sink.playedMs?.() ?? 0) + (this.sink.pendingMs?.() ?? 0);
  }

  add(frame: AudioFrame): void {
    const durationMs = frameDurationMs(frame);
    if (this.totalMs + durationMs > this.options.maxBufferedMs) {
      throw new RangeError(`reply longer than ${this.options.maxBufferedMs} ms of audio`);
    }
    this.frames.push({ frame, startMs: this.totalMs, durationMs });
    this.totalMs += durationMs;
    this.pump();
  }

  end(): void {
    this.sourceDone = true;
    this.pump();
  }

  pause(): void {
    if (this.paused) return;
    const played = this.playedMs();
    this.paused = true;
    this.sink.clear();
    this.sentMs = played;
    this.emit({ type: 'paused', playedMs: played });
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.anchorMs = this.clock.now() - this.sentMs;
    this.sinkStartMs = this.sinkPositionMs();
    this.replyStartMs = this.sentMs;
    this.emit({ type: 'resumed', fromMs: this.sentMs });
    this.pump();
  }

  /** Hands out what is due; returns true once everything has been played. */
  pump(): boolean {
    if (this.paused) return false;
    const now = this.clock.now();
    if (this.started && this.sentMs < now - this.anchorMs) this.anchorMs = now - this.sentMs; // underrun: re-anchor
    while (this.sentMs < this.totalMs && (!this.started || this.sentMs < now - this.anchorMs + this.options.leadMs)) {
      if (!this.started) {
        this.started = true;
        this.anchorMs = now;
        this.sinkStartMs = this.sinkPositionMs();
        this.emit({ type: 'first-audio', atMs: now });
      }
      const { piece, endMs } = this.pieceAt(this.sentMs);
      if (piece.samples.length > 0) this.sink.play(piece);
      this.sentMs = endMs;
    }
    if (this.sourceDone && this.sentMs >= this.totalMs && (!this.started || now - this.anchorMs >= this.totalMs)) {
      this.emit({ type: 'finished', playedMs: this.totalMs });
      return true;
    }
    return false;
  }

  /** The audio from `offsetMs` to the end of the stored frame holding it, and where that frame ends. */
  private pieceAt(offsetMs: number): { piece: AudioFrame; endMs: number } {
    // Playout moves forward, so the search starts at the frame found last; a pause can move it back.
    if (this.frames[this.cursor]!.startMs > offsetMs + 1e-6) this.cursor = 0;
    while (this.cursor < this.frames.length - 1 && offsetMs >= this.frames[this.cursor]!.startMs + this.frames[this.cursor]!.durationMs - 1e-6) this.cursor++;
    const stored = this.frames[this.cursor]!;
    const endMs = stored.startMs + stored.durationMs;
    if (offsetMs <= stored.startMs + 1e-6) return { piece: stored.frame, endMs };
    const skip = Math.min(stored.frame.samples.length, Math.round(((offsetMs - stored.startMs) * stored.frame.sampleRate) / 1000));
    return {
      piece: {
        samples: stored.frame.samples.subarray(skip),
        sampleRate: stored.frame.sampleRate,
        timestampMs: stored.frame.timestampMs + offsetMs - stored.startMs,
      },
      endMs,
    };
  }
}

/**
 * Paced playout as an operator: reply audio in, playout events out; completes when the reply has been heard.
 * `control$` pauses and resumes (false interruption); `onState` receives the playout so callers can read `playedMs`.
 */
export function playOut(
  sink: PlayoutSink,
  clock: Clock,
  control$: Observable<PlayoutControl>,
  options: Partial<PlayoutOptions> = {},
  onState?: (playout: PacedPlayout) => void,
): OperatorFunction<AudioFrame, PlayoutEvent> {
  const o = { ...defaults, ...options };
  return (source) =>
    new Observable<PlayoutEvent>((subscriber) => {
      let ticks: Subscription | undefined;
      let done = false;
      const playout = new PacedPlayout(sink, clock, o, (event) => {
        if (event.type === 'finished') done = true;
        subscriber.next(event);
      });
      onState?.(playout);
      const check = () => {
        if (done) {
          ticks?.unsubscribe();
          subscriber.complete();
        }
      };
      const guard = (action: () => void) => {
        try {
          action();
          check();
        } catch (error) {
          subscriber.error(error);
        }
      };
      ticks = sharedTicks(o.tickMs, clock.scheduler).subscribe(() => guard(() => playout.pump()));
      const controls = control$.subscribe((control) => guard(() => (control === 'pause' ? playout.pause() : playout.resume())));
      const audio = source.subscribe({
        next: (frame) => guard(() => playout.add(frame)),
        error: (error: unknown) => subscriber.error(error),
        complete: () => guard(() => playout.end()),
      });
      return () => {
        ticks?.unsubscribe();
        controls.unsubscribe();
        audio.unsubscribe();
      };
    });
}
