import { canonicalTokens, type SynonymTable } from './text-normalizer.js';
import { wordSimilarity } from './word-similarity.js';

export interface IntentMatcherOptions {
  /** Word similarity (0..1) below which two words count as different. */
  wordThreshold: number;
  /** Weight of a function word ("the", "to", "i") against 1 for a content word. */
  stopWordWeight: number;
  /** Share of an example's score that comes from how much of the example was heard (the rest: how much of the utterance it explains). */
  recallWeight: number;
}

export const defaults: IntentMatcherOptions = { wordThreshold: 0.7, stopWordWeight: 0.25, recallWeight: 0.8 };

const stopWords = new Set(
  ('a an the to of for in on at by with and or but so i me my we us our you your it its is am are was were be ' +
    'been do does did can could would will shall should may might must this that these those there here please ' +
    'like want just um uh er ah oh well some any have has had get go going what').split(' '),
);

export interface IntentPhrases {
  examples?: readonly string[];
  keywords?: readonly string[];
}

export interface IntentScore {
  intent: string;
  score: number;
  /** The example or keyword that scored best. */
  matched: string;
}

interface CompiledPhrase {
  text: string;
  /** Indexes into the matcher's vocabulary. */
  words: number[];
}

interface CompiledIntent {
  intent: string;
  examples: CompiledPhrase[];
  keywords: CompiledPhrase[];
}

/** One utterance being ranked: its words, and their similarity to vocabulary words, computed on first use. */
class UtteranceTable {
  readonly unique: string[];
  /** For each position in the utterance, the index of its word in `unique`. */
  readonly positions: number[];
  private readonly cells: Float32Array;

  constructor(tokens: readonly string[], private readonly vocabulary: readonly string[], private readonly floor: number) {
    const index = new Map<string, number>();
    this.unique = [];
    this.positions = tokens.map((token) => {
      let i = index.get(token);
      if (i === undefined) {
        i = this.unique.push(token) - 1;
        index.set(token, i);
      }
      return i;
    });
    this.cells = new Float32Array(this.unique.length * vocabulary.length).fill(-1);
  }

  /** Similarity of utterance word `u` to vocabulary word `v`, 0 below the floor. */
  similarity(u: number, v: number): number {
    const cell = u * this.vocabulary.length + v;
    let value = this.cells[cell]!;
    if (value < 0) {
      value = wordSimilarity(this.unique[u]!, this.vocabulary[v]!, this.floor);
      if (value < this.floor) value = 0;
      this.cells[cell] = value;
    }
    return value;
  }
}

/**
 * Scores transcripts against intents, tolerant of recognition errors: words are compared by spelling and sound
 * (so "tonite" meets "tonight"), synonyms fold to one word, function words weigh little, and a keyword heard
 * anywhere in the utterance is enough on its own.
 */
export class IntentMatcher {
  private readonly compiled: CompiledIntent[];
  private readonly options: IntentMatcherOptions;
  private readonly vocabulary: string[] = [];
  private readonly vocabularyWeights: number[] = [];

  constructor(
    intents: Readonly<Record<string, IntentPhrases>>,
    private readonly synonyms?: SynonymTable,
    options: Partial<IntentMatcherOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
    const index = new Map<string, number>();
    const compile = (text: string): CompiledPhrase => ({
      text,
      words: canonicalTokens(text, synonyms).map((word) => {
        let i = index.get(word);
        if (i === undefined) {
          i = this.vocabulary.push(word) - 1;
          this.vocabularyWeights.push(this.weight(word));
          index.set(word, i);
        }
        return i;
      }),
    });
    this.compiled = Object.entries(intents).map(([intent, phrases]) => ({
      intent,
      examples: (phrases.examples ?? []).map(compile),
      keywords: (phrases.keywords ?? []).map(compile),
    }));
  }

  /**
   * Every intent in `candidates` (all when omitted) with its score for `utterance`, best first. A keyword hit
   * does not count for its intent when an example of another intent contains the keyword, was heard with more
   * content words than the keyword, and scores above the keyword intent's own examples: the longer phrase wins
   * ("cancel the booking" is about cancelling, not booking).
   */
  rank(utterance: string, candidates?: readonly string[]): IntentScore[] {
    const table = new UtteranceTable(canonicalTokens(utterance, this.synonyms), this.vocabulary, this.options.wordThreshold);
    const ranked = this.compiled
      .filter((intent) => !candidates || candidates.includes(intent.intent))
      .map((intent) => ({ intent, examples: intent.examples.map((example) => ({ example, score: this.exampleScore(example.words, table) })) }));
    const scores: IntentScore[] = [];
    for (const { intent, examples } of ranked) {
      let best: IntentScore = { intent: intent.intent, score: 0, matched: '' };
      for (const { example, score } of examples) {
        if (score > best.score) best = { intent: intent.intent, score, matched: example.text };
      }
      const ownBest = best.score;
      for (const keyword of intent.keywords) {
        const score = this.keywordScore(keyword.words, table);
        if (score <= best.score) continue;
        const claimed = ranked.some(
          (other) =>
            other.intent !== intent &&
            other.examples.some((e) => e.score > ownBest && this.extends(e.example.words, keyword.words, table)),
        );
        if (!claimed) best = { intent: intent.intent, score, matched: keyword.text };
      }
      scores.push(best);
    }
    return scores.sort((a, b) => b.score - a.score);
  }

  /** True when `example` contains every word of `keyword` and a heard content word besides. */
  private extends(example: readonly number[], keyword: readonly number[], table: UtteranceTable): boolean {
    if (!keyword.every((word) => example.includes(word))) return false;
    return example.some(
      (v) => !keyword.includes(v) && this.vocabularyWeights[v] === 1 && table.unique.some((_, u) => table.similarity(u, v) > 0),
    );
  }

  private weight(token: string): number {
    return stopWords.has(token) ? this.options.stopWordWeight : 1;
  }

  /**
   * Weighted share of the example's words heard in the utterance (recall), blended with the weighted share of
   * the utterance's words the example accounts for (precision).
   */
  private exampleScore(example: readonly number[], table: UtteranceTable): number {
    if (example.length === 0 || table.positions.length === 0) return 0;
    let recallTotal = 0;
    let recallFound = 0;
    for (const v of example) {
      let best = 0;
      for (let u = 0; u < table.unique.length && best < 1; u++) best = Math.max(best, table.similarity(u, v));
      recallTotal += this.vocabularyWeights[v]!;
      recallFound += this.vocabularyWeights[v]! * best;
    }
    let precisionTotal = 0;
    let precisionFound = 0;
    for (const u of table.positions) {
      let best = 0;
      for (let k = 0; k < example.length && best < 1; k++) best = Math.max(best, table.similarity(u, example[k]!));
      const weight = this.weight(table.unique[u]!);
      precisionTotal += weight;
      precisionFound += weight * best;
    }
    const recall = recallFound / recallTotal;
    const precision = precisionFound / precisionTotal;
    return this.options.recallWeight * recall + (1 - this.options.recallWeight) * precision;
  }

  /** 0 unless every word of the keyword is heard, in order; then 0.9 scaled by how closely they were heard. */
  private keywordScore(keyword: readonly number[], table: UtteranceTable): number {
    if (keyword.length === 0) return 0;
    let from = 0;
    let product = 1;
    for (const v of keyword) {
      let found = -1;
      let similarity = 0;
      for (let i = from; i < table.positions.length && similarity < 1; i++) {
        const s = table.similarity(table.positions[i]!, v);
        if (s > similarity) {
          similarity = s;
          found = i;
        }
      }
      if (found < 0) return 0;
      product *= similarity;
      from = found + 1;
    }
    return 0.9 * product;
  }
}
