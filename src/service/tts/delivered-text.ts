import type { SpeechChunk } from './synthesis.js';

/**
 * Counts the billed characters of the chunks whose audio was sent: all of them once every chunk went out,
 * before that a share by the length of the chunks sent (chunk text may be normalised, so it is not the
 * billed text itself).
 */
export class DeliveredText {
  private readonly totalLength: number;
  private sentLength = 0;
  private sentChunks = 0;

  constructor(
    private readonly chunks: readonly SpeechChunk[],
    private readonly billedCharacters: number,
  ) {
    this.totalLength = chunks.reduce((sum, chunk) => sum + chunk.text.length, 0);
  }

  sent(chunk: SpeechChunk): void {
    this.sentChunks += 1;
    this.sentLength += chunk.text.length;
  }

  get complete(): boolean {
    return this.sentChunks >= this.chunks.length;
  }

  /** Billed characters delivered so far. */
  get characters(): number {
    if (this.complete) return this.billedCharacters;
    if (this.totalLength === 0) return 0;
    return Math.min(this.billedCharacters, Math.round((this.billedCharacters * this.sentLength) / this.totalLength));
  }
}
