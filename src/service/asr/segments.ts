import type { WordTiming } from '../../speech/index.js';

export interface TranscriptSegment {
  text: string;
  /** Seconds from the start of the audio (the wire keeps the interface's unit). */
  start: number;
  end: number;
}

export const defaults = {
  /** A pause at least this long between two words starts a new segment, in ms. */
  segmentGapMs: 400,
  /** A segment is closed once it holds this many words. */
  maxWordsPerSegment: 30,
};

const seconds = (ms: number) => Math.round(ms) / 1000;

/** Groups recognised words into segments at pauses. */
export function segmentWords(words: readonly WordTiming[], options: Partial<typeof defaults> = {}): TranscriptSegment[] {
  const { segmentGapMs, maxWordsPerSegment } = { ...defaults, ...options };
  const segments: TranscriptSegment[] = [];
  let current: WordTiming[] = [];
  const close = () => {
    if (current.length === 0) return;
    segments.push({
      text: current.map((word) => word.word).join(' '),
      start: seconds(current[0]!.startMs),
      end: seconds(current[current.length - 1]!.endMs),
    });
    current = [];
  };
  for (const word of words) {
    const previous = current[current.length - 1];
    if (previous && (word.startMs - previous.endMs >= segmentGapMs || current.length >= maxWordsPerSegment)) close();
    current.push(word);
  }
  close();
  return segments;
}
