import { Observable, Subject, concat, of } from 'rxjs';
import type { AudioFrame } from '../audio/index.js';
import type { TransportEvent } from '../agent/contracts.js';

/**
 * The caller's side of one call as a transport hands it to the agent: `audio$` (frames at one wire rate) and
 * `events$` (starting with `connected`), both completed once when the call ends, after a final `hangup` event.
 */
export class CallStreams {
  readonly audio$: Observable<AudioFrame>;
  readonly events$: Observable<TransportEvent>;

  private readonly audioSubject = new Subject<AudioFrame>();
  private readonly eventSubject = new Subject<TransportEvent>();
  private lastFrameEndMs = 0;
  private ended = false;

  /** `now` times the caller's frames: the wall clock, or a virtual clock when a driver runs the call (scenario tests). */
  constructor(
    private readonly sampleRate: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.audio$ = this.audioSubject.asObservable();
    this.events$ = concat(of<TransportEvent>({ type: 'connected' }), this.eventSubject);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Emits caller samples that arrived just now; a frame's timestamp never goes back before the previous frame's end. */
  receiveSamples(samples: Int16Array): void {
    const durationMs = (samples.length * 1000) / this.sampleRate;
    const timestampMs = Math.max(this.lastFrameEndMs, this.now() - durationMs);
    this.lastFrameEndMs = timestampMs + durationMs;
    this.audioSubject.next({ samples, sampleRate: this.sampleRate, timestampMs });
  }

  emit(event: TransportEvent): void {
    this.eventSubject.next(event);
  }

  /** Agent audio could not be converted to the wire rate: the agent hears of it as a `playout_error` message. */
  reportPlayoutError(error: unknown): void {
    this.emit({ type: 'message', data: { type: 'playout_error', message: String(error) } });
  }

  /** Ends the call once: `release` frees what the transport holds, then `hangup` is emitted and both streams complete. */
  end(reason: string, release: () => void): void {
    if (this.ended) return;
    this.ended = true;
    release();
    this.eventSubject.next({ type: 'hangup', reason });
    this.eventSubject.complete();
    this.audioSubject.complete();
  }
}
