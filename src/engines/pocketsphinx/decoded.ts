import type { Hypothesis, WordTiming } from '../types.js';
import type { PocketSphinxLibrary, Segment } from './sphinx-library.js';
import { frameMs } from './options.js';

/** A search's result for one utterance and its acoustic score (log-likelihood, pocketsphinx units). */
export interface Decoded {
  hypothesis: Hypothesis;
  acousticScore: number;
  frames: number;
}

/** The active search's result for the last utterance, with its acoustic score over all its frames. */
export function decodedResult(lib: PocketSphinxLibrary, handle: unknown): Decoded {
  const segments = lib.segments(handle);
  const words = wordsOf(segments);
  const text = words.length > 0 ? words.map((w) => w.word).join(' ') : cleanHypothesis(lib.hypothesis(handle));
  const acousticScore = segments.reduce((sum, s) => sum + s.acousticScore, 0);
  const frames = segments.length > 0 ? segments.at(-1)!.endFrame + 1 - segments[0]!.startFrame : 0;
  return { hypothesis: { text, words }, acousticScore, frames };
}

const fillerPattern = /^(<s>|<\/s>|<sil>|\(NULL\)|\[[A-Z_]+\]|\+\+.*\+\+)$/;

/**
 * Word times from the segments. The utterance's `<s>` segment starts at frame 0; in utterances longer
 * than about 7 s, pocketsphinx 5prealpha reports every segment shifted by a constant number of frames,
 * visible as `<s>` starting later, so that offset is taken off.
 */
function wordsOf(segments: Segment[]): WordTiming[] {
  const shift = segments[0]?.word === '<s>' ? segments[0].startFrame : 0;
  return segments
    .filter((s) => !fillerPattern.test(s.word))
    .map((s) => ({
      word: stripVariant(s.word),
      startMs: (s.startFrame - shift) * frameMs,
      endMs: (s.endFrame + 1 - shift) * frameMs,
    }));
}

function stripVariant(word: string): string {
  return word.replace(/\(\d+\)$/, '');
}

function cleanHypothesis(hyp: string | null): string {
  return (hyp ?? '').split(/\s+/).filter((w) => w && !fillerPattern.test(w)).map(stripVariant).join(' ');
}
