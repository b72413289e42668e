import type { SphinxDecoder } from './sphinx-decoder.js';

/** How many decoders one worker may load and keep. */
export interface DecoderLimits {
  /** Decoders loaded at once (busy and idle); beyond it, whoever needs one waits for one to be given back. */
  loaded: number;
  /** Idle decoders kept for reuse; the others are freed when given back. */
  idle: number;
}

/**
 * The decoders of one worker thread. A decoder is ~58 MB, so their number is capped: when every loaded decoder
 * is busy, the next one given back goes to the first in line (first come, first served).
 */
export class DecoderSupply {
  private readonly idle: SphinxDecoder[] = [];
  private readonly queue: Array<(decoder: SphinxDecoder, loadMs?: number) => void> = [];
  private loaded = 0;

  constructor(
    private readonly load: () => SphinxDecoder,
    private readonly limits: DecoderLimits,
  ) {}

  /** A free decoder (reset, so it has heard nothing; `loadMs` when it was loaded now), or undefined when all are busy. */
  take(): { decoder: SphinxDecoder; loadMs?: number } | undefined {
    const reused = this.idle.pop();
    if (reused) return { decoder: reused };
    if (this.loaded >= this.limits.loaded) return undefined;
    const started = performance.now();
    const decoder = this.load();
    this.loaded++;
    return { decoder, loadMs: performance.now() - started };
  }

  /** Hands `receive` the next decoder given back, after those already waiting; returns a function that leaves the line. */
  wait(receive: (decoder: SphinxDecoder, loadMs?: number) => void): () => void {
    this.queue.push(receive);
    return () => {
      const at = this.queue.indexOf(receive);
      if (at >= 0) this.queue.splice(at, 1);
    };
  }

  /** Decoders waited for right now. */
  get waiting(): number {
    return this.queue.length;
  }

  /** A decoder its user is done with: to the first in line, else kept idle or freed (one that cannot be reset is freed). */
  giveBack(decoder: SphinxDecoder): void {
    decoder.reset();
    if (!decoder.reusable) {
      this.free(decoder);
      const next = this.queue.length > 0 ? this.take() : undefined;
      if (next) this.queue.shift()!(next.decoder, next.loadMs);
      return;
    }
    const next = this.queue.shift();
    if (next) next(decoder);
    else if (this.idle.length < Math.min(this.limits.idle, this.limits.loaded)) this.idle.push(decoder);
    else this.free(decoder);
  }

  /** Frees idle decoders beyond `keep`; true when any was freed. */
  trim(keep: number): boolean {
    const freed = this.idle.splice(keep);
    for (const decoder of freed) this.free(decoder);
    return freed.length > 0;
  }

  /** Frees the idle decoders and those given here (the busy ones), and forgets the line. */
  dispose(busy: SphinxDecoder[]): void {
    for (const decoder of [...busy, ...this.idle.splice(0)]) this.free(decoder);
    this.queue.length = 0;
  }

  private free(decoder: SphinxDecoder): void {
    decoder.free();
    this.loaded--;
  }
}
