let rowA = new Uint16Array(64);
let rowB = new Uint16Array(64);

/** Levenshtein distance with two rolling rows; stops early, returning `limit + 1`, once it must exceed `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  if (rowA.length <= b.length) {
    rowA = new Uint16Array(b.length + 1);
    rowB = new Uint16Array(b.length + 1);
  }
  let previous = rowA;
  let current = rowB;
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMinimum = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1);
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      current[j] = value;
      if (value < rowMinimum) rowMinimum = value;
    }
    if (rowMinimum > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}

const consonantClass: Readonly<Record<string, string>> = {
  b: 'p', p: 'p', d: 't', t: 't', c: 'k', k: 'k', q: 'k', g: 'k', v: 'f', f: 'f',
  s: 's', z: 's', x: 's', m: 'n', n: 'n', l: 'l', r: 'r', j: 'j',
};

/**
 * A rough sound key: spelling digraphs folded, voiced/unvoiced consonant pairs merged, vowels dropped after the
 * first letter (w, h and y kept there). Words a recogniser confuses by sound ("tonite"/"tonight") share a key.
 */
export function soundKey(word: string): string {
  let key = soundKeys.get(word);
  if (key === undefined) {
    if (soundKeys.size >= maxCachedKeys) soundKeys.clear();
    key = computeSoundKey(word);
    soundKeys.set(word, key);
  }
  return key;
}

const soundKeys = new Map<string, string>();
const maxCachedKeys = 20_000;

function computeSoundKey(word: string): string {
  const w = word.toLowerCase().replace(/[^a-z]/g, '')
    .replace(/ph/g, 'f').replace(/gh/g, '').replace(/ck/g, 'k').replace(/[st]ch/g, 'sk')
    .replace(/sh|ch/g, 's').replace(/th/g, 't').replace(/^kn|^gn|^wr/g, (m) => m.slice(1));
  let key = '';
  for (let i = 0; i < w.length; i++) {
    const ch = w[i]!;
    const first = i === 0 ? ('aeiou'.includes(ch) ? 'a' : ch) : '';
    const mapped = consonantClass[ch] ?? first;
    if (mapped && key[key.length - 1] !== mapped) key += mapped;
  }
  return key;
}

/**
 * How alike two recognised words are, 0..1: 1 when equal, else the better of spelling similarity
 * (1 - edit distance / longer length) and a sound-key match (keys of three or more sounds only). Words of one or
 * two letters must match exactly. Spelling similarities below `floor` are not worked out exactly (they come back
 * as the sound score, or 0).
 */
export function wordSimilarity(a: string, b: string, floor = 0): number {
  if (a === b) return 1;
  if (a.length <= 2 || b.length <= 2) return 0;
  const longer = Math.max(a.length, b.length);
  const keyA = soundKey(a);
  const sound = keyA.length >= 3 && keyA === soundKey(b) ? 0.8 : 0;
  // The length difference alone bounds the spelling similarity; skip the distance when it cannot win.
  const least = Math.max(sound, floor);
  if (1 - Math.abs(a.length - b.length) / longer < least) return sound;
  const distance = editDistance(a, b, Math.floor((1 - least) * longer));
  const spelling = 1 - distance / longer;
  return spelling >= least ? Math.max(spelling, sound) : sound;
}
