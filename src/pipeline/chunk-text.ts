import { Observable, type OperatorFunction } from 'rxjs';
import { findBoundaries } from '../engines/text/index.js';

/** Where the text of a reply is cut into pieces that are sent to speech one at a time. */
export interface ChunkOptions {
  /** `clause` cuts the first piece at the first clause (, ; : —) and later pieces at sentences; `sentence` cuts at sentences only. */
  firstChunk: 'clause' | 'sentence';
  /** A clause shorter than this many characters is joined to the next one. */
  minClauseChars: number;
  /** A piece longer than this many characters is cut at the last space. */
  maxChunkChars: number;
}

export const defaults: ChunkOptions = { firstChunk: 'sentence', minClauseChars: 12, maxChunkChars: 240 };

/**
 * Finds the end (exclusive) of the first complete piece in `text`, or -1. Boundaries come from the
 * abbreviation-aware splitter: "Dr. Smith", "7 p.m. tonight" and "3.5" are not cut, and a period is only
 * taken as an end once the word after it has arrived (or the text is `final`).
 */
function cutPoint(text: string, clause: boolean, minClauseChars: number, final: boolean): number {
  for (const boundary of findBoundaries(text, final)) {
    if (boundary.kind === 'clause' && (!clause || text.slice(0, boundary.end).trim().length < minClauseChars)) continue;
    return boundary.end;
  }
  return -1;
}

/** Text deltas in, speakable pieces out (each trimmed, never empty). */
export function chunkText(options: Partial<ChunkOptions> = {}): OperatorFunction<string, string> {
  const o = { ...defaults, ...options };
  return (source) =>
    new Observable<string>((subscriber) => {
      let buffer = '';
      let pieces = 0;
      const drain = (final: boolean) => {
        for (;;) {
          const clause = o.firstChunk === 'clause' && pieces === 0;
          let end = cutPoint(buffer, clause, o.minClauseChars, final);
          if (end < 0 && buffer.length > o.maxChunkChars) {
            const space = buffer.lastIndexOf(' ', o.maxChunkChars);
            end = space > 0 ? space + 1 : o.maxChunkChars;
          }
          if (end < 0) break;
          const piece = buffer.slice(0, end).trim();
          buffer = buffer.slice(end);
          if (piece) {
            pieces++;
            subscriber.next(piece);
          }
        }
        if (final) {
          const rest = buffer.trim();
          buffer = '';
          if (rest) subscriber.next(rest);
        }
      };
      return source.subscribe({
        next: (delta) => {
          buffer += delta;
          drain(false);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          drain(true);
          subscriber.complete();
        },
      });
    });
}
