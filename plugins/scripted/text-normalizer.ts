/** Maps canonical words to the variants that should count as them, e.g. `{ book: ['reserve', 'reservation'] }`. */
export type SynonymTable = Readonly<Record<string, readonly string[]>>;

const contractions: ReadonlyArray<[RegExp, string]> = [
  [/\bwon't\b/g, 'will not'],
  [/\bcan't\b/g, 'can not'],
  [/\blet's\b/g, 'let us'],
  [/\b(what|that|it|there|here|where|who|how|he|she|name)'s\b/g, '$1 is'],
  [/\bi'm\b/g, 'i am'],
  [/n't\b/g, ' not'],
  [/'ll\b/g, ' will'],
  [/'re\b/g, ' are'],
  [/'ve\b/g, ' have'],
  [/'d\b/g, ' would'],
];

/**
 * Lower-cases, expands contractions, drops punctuation and recogniser markup (`<sil>`, `[noise]`, `word(2)`),
 * and joins spelled meridiems ("p m", "p.m.") into `pm`/`am`. Digits and `7:30` style times are kept.
 */
export function normalizeText(text: string): string {
  let s = text.toLowerCase().replace(/[’‘`]/g, "'");
  s = s.replace(/<[^>]*>|\[[^\]]*\]/g, ' ').replace(/\(\d+\)/g, ' ');
  s = s.replace(/\b([ap])\.\s?m\.?/g, '$1m');
  for (const [pattern, replacement] of contractions) s = s.replace(pattern, replacement);
  s = s.replace(/(\d):(\d)/g, '$1\u0000$2');
  s = s.replace(/[^a-z0-9\u0000\s]/g, ' ').replace(/\u0000/g, ':');
  s = s.replace(/\b([ap]) m\b/g, '$1m');
  return s.replace(/\s+/g, ' ').trim();
}

export function tokenize(text: string): string[] {
  const normalized = normalizeText(text);
  return normalized ? normalized.split(' ') : [];
}

interface CompiledSynonyms {
  words: Map<string, string>;
  phrases: Array<{ tokens: string[]; canonical: string }>;
}

const compiledCache = new WeakMap<SynonymTable, CompiledSynonyms>();

function compile(table: SynonymTable): CompiledSynonyms {
  const cached = compiledCache.get(table);
  if (cached) return cached;
  const words = new Map<string, string>();
  const phrases: CompiledSynonyms['phrases'] = [];
  for (const [canonical, variants] of Object.entries(table)) {
    const canonicalText = normalizeText(canonical);
    for (const variant of variants) {
      const tokens = tokenize(variant);
      if (tokens.length === 1) words.set(tokens[0]!, canonicalText);
      else if (tokens.length > 1) phrases.push({ tokens, canonical: canonicalText });
    }
  }
  phrases.sort((a, b) => b.tokens.length - a.tokens.length);
  const result = { words, phrases };
  compiledCache.set(table, result);
  return result;
}

/** Replaces synonym variants (longest phrases first) by their canonical word(s). */
export function applySynonyms(tokens: readonly string[], table: SynonymTable | undefined): string[] {
  if (!table) return [...tokens];
  const { words, phrases } = compile(table);
  const out: string[] = [];
  for (let i = 0; i < tokens.length; ) {
    const phrase = phrases.find((p) => p.tokens.every((t, k) => tokens[i + k] === t));
    if (phrase) {
      out.push(...phrase.canonical.split(' '));
      i += phrase.tokens.length;
      continue;
    }
    const token = tokens[i]!;
    out.push(...(words.get(token) ?? token).split(' '));
    i += 1;
  }
  return out;
}

/** Tokens of `text` after normalisation and synonym replacement: what intent matching compares. */
export function canonicalTokens(text: string, table?: SynonymTable): string[] {
  return applySynonyms(tokenize(text), table);
}
