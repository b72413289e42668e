/** `<|speaker:N|>` tags mark speaker changes inside one TTS text. */

export interface SpeakerSegment {
  speaker: number;
  text: string;
}

/** A tag names a speaker beyond those supplied (HTTP 400). */
export class SpeakerIndexError extends Error {
  readonly status = 400;
  override readonly name = 'SpeakerIndexError';
}

const tag = /<\|speaker:(\d+)\|>/g;

/**
 * Splits text at speaker tags. Text before the first tag belongs to speaker 0; empty segments are dropped.
 * With `speakerCount`, a tag naming a speaker outside 0..speakerCount-1 throws SpeakerIndexError.
 */
export function parseSpeakerSegments(text: string, speakerCount?: number): SpeakerSegment[] {
  const segments: SpeakerSegment[] = [];
  let speaker = 0;
  let start = 0;
  const push = (end: number) => {
    const piece = text.slice(start, end).replace(/\s+/g, ' ').trim();
    if (piece) segments.push({ speaker, text: piece });
  };
  for (const match of text.matchAll(tag)) {
    push(match.index);
    speaker = Number(match[1]);
    if (speakerCount !== undefined && speaker >= speakerCount) {
      throw new SpeakerIndexError(
        `text uses <|speaker:${speaker}|> but only ${speakerCount} speaker${speakerCount === 1 ? '' : 's'} (0-${speakerCount - 1}) were given`,
      );
    }
    start = match.index + match[0].length;
  }
  push(text.length);
  return segments;
}

/** True when the text contains at least one speaker tag. */
export function hasSpeakerTags(text: string): boolean {
  return /<\|speaker:\d+\|>/.test(text);
}
