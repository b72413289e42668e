/** Agent audio as the caller heard it: placed on the call's timeline at the line's rate. */
export interface HeardAudio {
  atMs: number;
  samples: Int16Array;
}

/** A stretch of agent audio without a gap, as the caller heard it. */
export interface Spurt {
  startMs: number;
  endMs: number;
}

/**
 * What the caller's end of a line plays: agent audio queued as it arrives (after what is still playing), cut
 * where the agent drops its buffer (barge-in), and the spurts of audio the caller heard.
 */
export class HeardTrack {
  readonly pieces: HeardAudio[] = [];
  readonly spurts: Spurt[] = [];
  private queueEndMs = 0;

  constructor(private readonly sampleRate: number) {}

  /** When the audio queued so far will have been heard. */
  get endMs(): number {
    return this.queueEndMs;
  }

  /** Queues `samples` that arrived at `nowMs`; returns when they will start playing. */
  place(samples: Int16Array, nowMs: number): number {
    const atMs = Math.max(nowMs, this.queueEndMs);
    if (atMs > this.queueEndMs || this.spurts.length === 0) this.spurts.push({ startMs: atMs, endMs: atMs });
    this.pieces.push({ atMs, samples });
    this.queueEndMs = atMs + (samples.length * 1000) / this.sampleRate;
    this.spurts.at(-1)!.endMs = this.queueEndMs;
    return atMs;
  }

  /** Drops the audio not yet heard at `nowMs`. */
  cutAt(nowMs: number): void {
    for (let index = this.pieces.length - 1; index >= 0; index--) {
      const piece = this.pieces[index]!;
      const endMs = piece.atMs + (piece.samples.length * 1000) / this.sampleRate;
      if (endMs <= nowMs) break;
      if (piece.atMs >= nowMs) this.pieces.splice(index, 1);
      else piece.samples = piece.samples.subarray(0, Math.round(((nowMs - piece.atMs) * this.sampleRate) / 1000));
    }
    this.queueEndMs = Math.min(this.queueEndMs, nowMs);
    const last = this.spurts.at(-1);
    if (last) {
      last.endMs = Math.min(last.endMs, nowMs);
      if (last.endMs <= last.startMs) this.spurts.pop();
    }
  }
}
