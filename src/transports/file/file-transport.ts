import { Observable, Subject } from 'rxjs';
import { frameDurationMs, resample, type AudioFrame } from '../../audio/index.js';
import type { CallTraceContext, Transport, TransportDescription, TransportEvent } from '../../agent/index.js';
import type { Clock } from '../../pipeline/index.js';
import { VirtualClock } from '../../pipeline/index.js';

export interface FileTransportOptions {
  /** Caller audio is handed to the agent in frames of this length. */
  frameMs: number;
  /** After the recording ends, silence keeps being fed at least this long... */
  minTailMs: number;
  /** ...and until the agent has been quiet this long after its last audio... */
  quietAfterAgentMs: number;
  /** ...but never longer than this. */
  maxTailMs: number;
  traceContext: CallTraceContext;
  /** The recording came through a telephone network at a wider rate (`Transport.telephoneBand`). */
  telephoneBand: boolean;
}

export const defaults: FileTransportOptions = {
  frameMs: 20,
  minTailMs: 1500,
  quietAfterAgentMs: 1000,
  maxTailMs: 20_000,
  traceContext: {},
  telephoneBand: false,
};

interface PlacedAudio {
  atMs: number;
  frame: AudioFrame;
}

/**
 * A recorded caller as a transport. Caller audio is fed at real-time pace on a wall clock, or as fast as the
 * agent settles on a VirtualClock (deterministic); agent audio is placed on the call's timeline where it
 * would have been heard, so the written reply lines up with the recording.
 */
export class FileTransport implements Transport {
  describe(): TransportDescription {
    return { kind: 'file' };
  }

  readonly audio$: Observable<AudioFrame>;
  readonly events$ = new Subject<TransportEvent>();
  readonly traceContext: CallTraceContext;
  readonly telephoneBand: boolean;
  /** Set by the driver: resolves when the agent has finished reacting to the audio fed so far. */
  settle: () => Promise<void> = () => Promise.resolve();
  private readonly options: FileTransportOptions;
  private placed: PlacedAudio[] = [];
  private queueEndMs = 0;
  private originMs = 0;
  private hungUp = false;
  private stopFeeding: (() => void) | undefined;

  constructor(
    private readonly caller: { samples: Int16Array; sampleRate: number },
    private readonly clock: Clock,
    options: Partial<FileTransportOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
    this.traceContext = this.options.traceContext;
    this.telephoneBand = this.options.telephoneBand;
    this.audio$ = new Observable<AudioFrame>((subscriber) => {
      let stopped = false;
      this.stopFeeding = () => {
        stopped = true;
        subscriber.complete();
      };
      void this.feed((frame) => subscriber.next(frame), () => stopped).then(
        () => subscriber.complete(),
        (error: unknown) => subscriber.error(error),
      );
      return () => {
        stopped = true;
      };
    });
  }

  /** Length of the recording in ms. */
  get callMs(): number {
    return (this.caller.samples.length * 1000) / this.caller.sampleRate;
  }

  private positionMs(): number {
    return this.clock.now() - this.originMs;
  }

  private async feed(next: (frame: AudioFrame) => void, stopped: () => boolean): Promise<void> {
    const { sampleRate, samples } = this.caller;
    const frameSamples = Math.round((sampleRate * this.options.frameMs) / 1000);
    const virtual = this.clock instanceof VirtualClock ? this.clock : undefined;
    this.originMs = this.clock.now();
    const silence = new Int16Array(frameSamples);
    for (let index = 0; !stopped() && !this.hungUp; index++) {
      const offset = index * frameSamples;
      const startMs = (offset * 1000) / sampleRate;
      if (offset >= samples.length && this.tailDone(startMs)) break;
      const chunk = offset < samples.length ? samples.subarray(offset, offset + frameSamples) : silence;
      const endMs = startMs + (chunk.length * 1000) / sampleRate;
      if (virtual) virtual.advanceTo(this.originMs + endMs);
      else await waitUntil(this.originMs + endMs, this.clock);
      if (stopped() || this.hungUp) break;
      next({ samples: chunk, sampleRate, timestampMs: startMs });
      await this.settle();
    }
  }

  private tailDone(positionMs: number): boolean {
    const o = this.options;
    if (positionMs >= this.callMs + o.maxTailMs) return true;
    if (positionMs < this.callMs + o.minTailMs) return false;
    return positionMs >= this.queueEndMs + o.quietAfterAgentMs;
  }

  play(frame: AudioFrame): void {
    const atMs = Math.max(this.positionMs(), this.queueEndMs);
    this.placed.push({ atMs, frame });
    this.queueEndMs = atMs + frameDurationMs(frame);
  }

  clear(): void {
    const nowMs = this.positionMs();
    const kept: PlacedAudio[] = [];
    for (const piece of this.placed) {
      if (piece.atMs >= nowMs) continue;
      const heardMs = nowMs - piece.atMs;
      if (heardMs < frameDurationMs(piece.frame)) {
        const samples = Math.round((heardMs * piece.frame.sampleRate) / 1000);
        kept.push({ atMs: piece.atMs, frame: { ...piece.frame, samples: piece.frame.samples.subarray(0, samples) } });
      } else kept.push(piece);
    }
    this.placed = kept;
    this.queueEndMs = Math.min(this.queueEndMs, nowMs);
  }

  /** Ms of agent audio queued but not yet heard. */
  queuedMs(): number {
    return Math.max(0, this.queueEndMs - this.positionMs());
  }

  hangup(reason?: string): void {
    if (this.hungUp) return;
    this.hungUp = true;
    this.events$.next({ type: 'hangup', reason });
    this.events$.complete();
    this.stopFeeding?.();
  }

  /** The agent's side on the call's timeline, at `sampleRate`, as long as the call (or its last agent audio). */
  async agentTrack(sampleRate: number): Promise<Int16Array> {
    const endMs = Math.max(this.callMs, ...this.placed.map((p) => p.atMs + frameDurationMs(p.frame)));
    const track = new Int16Array(Math.ceil((endMs * sampleRate) / 1000));
    // Contiguous runs are resampled together so no filter edges land inside words.
    let run: PlacedAudio[] = [];
    const flush = async () => {
      if (run.length === 0) return;
      const rate = run[0]!.frame.sampleRate;
      const joined = new Int16Array(run.reduce((n, p) => n + p.frame.samples.length, 0));
      let offset = 0;
      for (const piece of run) {
        joined.set(piece.frame.samples, offset);
        offset += piece.frame.samples.length;
      }
      const converted = rate === sampleRate ? joined : await resample(joined, rate, sampleRate);
      const start = Math.round((run[0]!.atMs * sampleRate) / 1000);
      track.set(converted.subarray(0, Math.max(0, track.length - start)), start);
      run = [];
    };
    for (const piece of this.placed) {
      const last = run.at(-1);
      const contiguous = last && last.frame.sampleRate === piece.frame.sampleRate && Math.abs(last.atMs + frameDurationMs(last.frame) - piece.atMs) < 0.5;
      if (!contiguous) await flush();
      run.push(piece);
    }
    await flush();
    return track;
  }
}

function waitUntil(targetMs: number, clock: Clock): Promise<void> {
  const delay = targetMs - clock.now();
  return delay <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, delay));
}
