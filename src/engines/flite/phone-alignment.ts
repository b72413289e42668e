import type { WordTiming } from '../types.js';

/** One synthesised phone with its time span in the output audio. */
export interface TimedPhone {
  phone: string;
  startMs: number;
  endMs: number;
}

const pause = 'pau';

/**
 * Parses flite's `-psdur` output: one line per utterance of `phone:endSeconds` pairs, times restarting
 * at each utterance. Utterances are concatenated in the audio, so later lines are shifted by the
 * durations of the earlier ones.
 */
export function parseSegmentDurations(stdout: string): TimedPhone[] {
  const phones: TimedPhone[] = [];
  let offsetMs = 0;
  for (const line of stdout.split('\n')) {
    const pairs = line.trim().split(/\s+/).filter((p) => /^[a-z]+:\d/.test(p));
    if (pairs.length === 0) continue;
    let previousMs = 0;
    for (const pair of pairs) {
      const [phone, seconds] = pair.split(':') as [string, string];
      const endMs = Number(seconds) * 1000;
      phones.push({ phone, startMs: offsetMs + previousMs, endMs: offsetMs + endMs });
      previousMs = endMs;
    }
    offsetMs += previousMs;
  }
  return phones;
}

/**
 * Word times from the synthesised phones and each word's own pronunciation: the two phone strings are
 * aligned by edit distance (pronunciations in context differ a little from isolated ones), and each word
 * spans the phones aligned to it.
 */
export function alignWords(words: string[], pronunciations: string[][], phones: TimedPhone[]): WordTiming[] {
  const spoken = phones.filter((p) => p.phone !== pause);
  const expected: Array<{ phone: string; word: number }> = [];
  pronunciations.forEach((pron, word) => pron.forEach((phone) => expected.push({ phone, word })));
  const owner = alignOwners(
    spoken.map((p) => p.phone),
    expected,
  );
  const spans = words.map(() => ({ startMs: Infinity, endMs: -Infinity }));
  owner.forEach((word, i) => {
    const span = spans[word]!;
    span.startMs = Math.min(span.startMs, spoken[i]!.startMs);
    span.endMs = Math.max(span.endMs, spoken[i]!.endMs);
  });
  let cursor = spoken[0]?.startMs ?? 0;
  return words.map((word, i) => {
    const span = spans[i]!;
    if (span.startMs === Infinity) return { word, startMs: round(cursor), endMs: round(cursor) };
    const startMs = Math.max(span.startMs, cursor);
    cursor = Math.max(span.endMs, startMs);
    return { word, startMs: round(startMs), endMs: round(cursor) };
  });
}

/** For each spoken phone, the index of the word it belongs to (Levenshtein alignment with backtrace). */
function alignOwners(spoken: string[], expected: Array<{ phone: string; word: number }>): number[] {
  const n = spoken.length;
  const m = expected.length;
  const cost = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = 0; i <= n; i++) cost[at(i, 0)] = i;
  for (let j = 0; j <= m; j++) cost[at(0, j)] = j;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const substitution = cost[at(i - 1, j - 1)]! + (spoken[i - 1] === expected[j - 1]!.phone ? 0 : 1);
      cost[at(i, j)] = Math.min(substitution, cost[at(i - 1, j)]! + 1, cost[at(i, j - 1)]! + 1);
    }
  }
  const owner = new Array<number>(n).fill(-1);
  let i = n;
  let j = m;
  while (i > 0) {
    if (j > 0 && cost[at(i, j)] === cost[at(i - 1, j - 1)]! + (spoken[i - 1] === expected[j - 1]!.phone ? 0 : 1)) {
      owner[i - 1] = expected[j - 1]!.word;
      i--;
      j--;
    } else if (j > 0 && cost[at(i, j)] === cost[at(i, j - 1)]! + 1) {
      j--;
    } else {
      i--;
    }
  }
  // Phones the words did not predict belong to the word before them (or the first word).
  let last = expected[0]?.word ?? 0;
  for (let k = 0; k < n; k++) {
    if (owner[k] === -1) owner[k] = last;
    else last = owner[k]!;
  }
  return owner;
}

/**
 * Estimated word times when pronunciations are unavailable: the speech between pauses is shared out
 * in proportion to each word's length in characters.
 */
export function estimateWords(words: string[], phones: TimedPhone[]): WordTiming[] {
  const spoken = phones.filter((p) => p.phone !== pause);
  if (spoken.length === 0 || words.length === 0) return words.map((word) => ({ word, startMs: 0, endMs: 0 }));
  const totalChars = words.reduce((n, w) => n + w.length, 0);
  const speechMs = spoken.reduce((n, p) => n + (p.endMs - p.startMs), 0);
  // Map a position in "speech time" (pauses removed) back to the audio timeline.
  // At a phone boundary a start belongs to the next phone (after any pause), an end to the previous one.
  const toAudioMs = (speechOffset: number, isStart = false) => {
    let remaining = speechOffset;
    for (const p of spoken) {
      const length = p.endMs - p.startMs;
      if (isStart ? remaining < length : remaining <= length) return p.startMs + remaining;
      remaining -= length;
    }
    return spoken.at(-1)!.endMs;
  };
  let chars = 0;
  return words.map((word) => {
    const startMs = toAudioMs((chars / totalChars) * speechMs, true);
    chars += word.length;
    return { word, startMs: round(startMs), endMs: round(toAudioMs((chars / totalChars) * speechMs)) };
  });
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
