import { isNonFinalAbbreviation } from './abbreviations.js';

export type BoundaryKind = 'sentence' | 'clause';

export interface Boundary {
  /** Index just after the punctuation (and any closing quotes or brackets). */
  end: number;
  kind: BoundaryKind;
}

const candidate = /([.!?…]+|[,;:]|\s[—–]|\s--?)["'”’)\]]*(?=\s)/g;

/**
 * Sentence and clause ends in `text`. A boundary counts only once the text after it is known: it must be
 * followed by whitespace and a next character (so "Dr." can be told apart from a sentence end), except at
 * the very end when `complete` is set. Periods of abbreviations, initials and decimals are not boundaries.
 */
export function findBoundaries(text: string, complete: boolean): Boundary[] {
  const found: Boundary[] = [];
  const source = complete ? `${text} ` : text;
  // Every look around a candidate stays near it, so a 100,000-character text takes linear time.
  const contentEnd = source.trimEnd().length;
  const following = /\s+(\S+)/y;
  for (const match of source.matchAll(candidate)) {
    const end = match.index + match[0].length;
    following.lastIndex = end;
    const nextWord = following.exec(source)?.[1];
    const atEnd = end >= contentEnd;
    if (nextWord === undefined && !(complete && atEnd)) continue;
    const mark = match[1]!.trim();
    if (mark === '.' || mark === '…' || /^\.+$/.test(mark)) {
      const wordBefore = /(\S+)\.+["'”’)\]]*$/.exec(source.slice(wordStart(source, end), end))?.[1] ?? '';
      if (mark === '.' && isNonFinalAbbreviation(wordBefore, nextWord)) continue;
    }
    const kind: BoundaryKind = /[.!?…]/.test(mark) ? 'sentence' : 'clause';
    found.push({ end: Math.min(end, text.length), kind });
  }
  return found;
}

/** Where the run of non-space characters that ends at `end` begins. */
function wordStart(text: string, end: number): number {
  let start = end;
  while (start > 0 && !/\s/.test(text[start - 1]!)) start--;
  return start;
}

/** Splits text into sentences, keeping their punctuation. */
export function splitSentences(text: string): string[] {
  return cutAt(text, findBoundaries(text, true).filter((b) => b.kind === 'sentence'));
}

/** Splits text into clauses (sentence ends plus commas, semicolons, colons and dashes). */
export function splitClauses(text: string): string[] {
  return cutAt(text, findBoundaries(text, true));
}

function cutAt(text: string, boundaries: Boundary[]): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const { end } of boundaries) {
    parts.push(text.slice(start, end));
    start = end;
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}
