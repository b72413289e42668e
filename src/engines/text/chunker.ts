import { findBoundaries, type BoundaryKind } from './boundaries.js';

export type ChunkLatency = 'low' | 'balanced' | 'normal';

/** Text segmentation for synthesis, after the service API's `chunk_length`, `min_chunk_length` and `latency` (docs/service-api.md). */
export interface ChunkerOptions {
  /** Target chunk size in characters (100-300): pieces are packed into a chunk up to this length. */
  chunkLength: number;
  /** A chunk is not closed before it has this many characters (0-100). */
  minChunkLength: number;
  /**
   * How early the first chunk is cut: `low` at the first clause or sentence end; `balanced` at the first
   * sentence end, or the first clause end once `minChunkLength` characters have arrived; `normal` like
   * every other chunk (packed up to `chunkLength`).
   */
  latency: ChunkLatency;
}

export const defaults: ChunkerOptions = { chunkLength: 300, minChunkLength: 50, latency: 'normal' };

/** Cuts text arriving in pieces (e.g. LLM deltas) into chunks for synthesis. */
export class TextChunker {
  private readonly options: ChunkerOptions;
  private pending = '';
  private current = '';
  private emitted = 0;

  constructor(options: Partial<ChunkerOptions> = {}) {
    this.options = { ...defaults, ...options };
  }

  /** Adds text; returns the chunks that are now complete. */
  push(delta: string): string[] {
    this.pending += delta;
    return this.drain(false);
  }

  /** Ends the text; returns the remaining chunks. */
  flush(): string[] {
    return this.drain(true);
  }

  private drain(complete: boolean): string[] {
    const out: string[] = [];
    let start = 0;
    for (const boundary of findBoundaries(this.pending, complete)) {
      this.add(this.pending.slice(start, boundary.end), boundary.kind, out);
      start = boundary.end;
    }
    this.pending = this.pending.slice(start);
    if (complete) {
      if (this.pending.trim()) this.add(this.pending, 'sentence', out);
      this.pending = '';
      this.emit(this.current, out);
      this.current = '';
    } else {
      this.cutLongTail(out);
    }
    return out;
  }

  private add(piece: string, kind: BoundaryKind, out: string[]): void {
    const { chunkLength, minChunkLength, latency } = this.options;
    if (this.emitted === 0 && latency === 'low') {
      this.emit(this.current + piece, out);
      this.current = '';
      return;
    }
    if (this.emitted === 0 && latency === 'balanced') {
      this.current += piece;
      if (kind === 'sentence' || this.current.trim().length >= minChunkLength) this.emitLong(out);
      return;
    }
    this.closeBefore(piece, out);
    this.current += piece;
    if (this.current.trim().length > chunkLength) this.emitLong(out, true);
  }

  /** Closes the current chunk when `piece` would overflow it (and it is long enough to close). */
  private closeBefore(piece: string, out: string[]): void {
    const { chunkLength, minChunkLength } = this.options;
    const currentLength = this.current.trim().length;
    if (currentLength < minChunkLength || currentLength + piece.trimEnd().length <= chunkLength) return;
    // Prefer closing the chunk at its last sentence end, carrying the clauses after it over.
    const sentenceEnd = this.lastSentenceEnd();
    const carried = sentenceEnd > 0 && this.current.slice(0, sentenceEnd).trim().length >= minChunkLength
      ? this.current.slice(sentenceEnd)
      : '';
    this.emit(this.current.slice(0, this.current.length - carried.length), out);
    this.current = carried;
    if ((carried + piece).trim().length > chunkLength && carried.trim().length >= minChunkLength) {
      this.emit(carried, out);
      this.current = '';
    }
  }

  /** Offset in `current` just after its last sentence end, or -1. */
  private lastSentenceEnd(): number {
    const ends = findBoundaries(this.current, true).filter((b) => b.kind === 'sentence');
    return ends.length > 0 ? ends[ends.length - 1]!.end : -1;
  }

  /** Emits the current text, split at words where it exceeds chunkLength; keeps the last part open if asked. */
  private emitLong(out: string[], keepLast = false): void {
    const parts = splitAtWords(this.current, this.options.chunkLength);
    const last = keepLast ? parts.pop() ?? '' : '';
    for (const part of parts) this.emit(part, out);
    this.current = last;
  }

  /** Text without a boundary that already overflows a chunk is cut at word boundaries (the last word stays). */
  private cutLongTail(out: string[]): void {
    const { chunkLength } = this.options;
    if ((this.current + this.pending).trim().length <= chunkLength) return;
    // The chunk so far closes as it would when the whole clause arrives; only then are words carried over.
    if (this.emitted > 0 || this.options.latency === 'normal') this.closeBefore(this.pending, out);
    if ((this.current + this.pending).trim().length <= chunkLength) return;
    const lastSpace = this.pending.search(/\s\S*$/);
    if (lastSpace <= 0) return;
    this.add(this.pending.slice(0, lastSpace), 'clause', out);
    this.pending = this.pending.slice(lastSpace);
  }

  private emit(text: string, out: string[]): void {
    const chunk = text.trim();
    if (!chunk) return;
    out.push(chunk);
    this.emitted++;
  }
}

/** Splits at whitespace into parts of at most `limit` characters (a single longer word is cut). */
function splitAtWords(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    let cut = rest.lastIndexOf(' ', limit);
    if (cut <= 0) cut = limit;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  if (rest) parts.push(rest);
  return parts;
}

/** Chunks a whole text. */
export function chunkText(text: string, options: Partial<ChunkerOptions> = {}): string[] {
  const chunker = new TextChunker(options);
  return [...chunker.push(text), ...chunker.flush()];
}
