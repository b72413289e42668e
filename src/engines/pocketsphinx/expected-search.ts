import { isOpenVocabulary, type Expectation } from '../../speech/index.js';
import { concatSamples } from '../../audio/index.js';
import type { CepstralMeanState } from './cepstral-mean.js';
import type { PocketSphinxLibrary } from './sphinx-library.js';
import { decodedResult, type Decoded } from './decoded.js';
import { compileGrammar, withDecoys } from './grammar.js';
import { grammarAccepts } from './grammar-match.js';
import { gateSilence } from './silence-gate.js';

/** How the grammar's result is weighed against open vocabulary. */
export interface ExpectedSearchOptions {
  /**
   * The grammar's result is taken unless its acoustic score is worse than open vocabulary's by more than
   * this much per 10 ms frame. Open vocabulary fits any speech at least as well acoustically, so speech the
   * grammar does not cover scores much worse there; expected answers score about as well, often better.
   */
  maxAcousticLossPerFrame: number;
  /**
   * The grammar's words must take at least this share of the time the open-vocabulary words take: a grammar
   * search can explain long speech it does not cover as one short answer amid "silence" and noise.
   */
  minSpeechCoverage: number;
  /**
   * ...unless the speech they leave uncovered is shorter than this (ms), less than a word: "up", heard by open
   * vocabulary as "ah but", leaves the closure and burst of its "p" to silence.
   */
  maxUncoveredSpeechMs: number;
  /**
   * The grammar's result is not taken when it has more words than the open-vocabulary result by more than
   * this: a grammar search pads speech with expected words ("four one nine two", heard by open vocabulary as
   * "for one nine two", was "four four nine nine ace two" to a grammar of card words).
   */
  maxExtraWords: number;
  /**
   * pocketsphinx's `-wip` for both grammar passes when digits are expected (the language model's search keeps
   * the decoder's): a run of digits with pauses between them is otherwise heard with a digit in a pause.
   */
  digitsWordInsertionPenalty: number;
  /**
   * Words the grammar search may take beside the expected answers when digits are expected (`withDecoys`):
   * speech it explains as one of them is returned as the open-vocabulary words. Dictionary words only.
   */
  digitsDecoys: readonly string[];
  /**
   * An answer of a run of keywords with number words (the card ranks "two" to "ten") is checked by decoding
   * again with the digit words the run lacks beside its keywords (`lackingDigits`): heard with one of them, the
   * speech was a number read out, no run of keywords. A search of its own, not the grammar pass: the acoustic
   * score pocketsphinx reports for a grammar's words still carries part of the grammar's weights, so more words
   * in a run would lower every answer's score and move answers across `maxAcousticLossPerFrame`.
   */
  checkRunsForDigits: boolean;
}

// Fitted on real speech, the tuning fold of test/fixtures/human (folds.json). There, at 16 kHz, answers the
// grammar covers lost at most 7.13 per frame and covered >= 0.88 of the open words' time, while clips outside
// a grammar lost >= 7.56 or covered <= 0.24: any loss in [7.13, 7.56) and coverage in (0.24, 0.88] separates
// them. Through the telephone channel the same constants still separate them, except "go" (coverage 0.46,
// indistinguishable from "no"/"oh" as other grammars' answers there). Held-out figures: bench/listening.ts and
// docs/measurements.md.
//
// The digits' insertion penalty was chosen on the tuning fold as a call hears it over four lines (the decoder's
// 0.65 heard dev_11's "five nine four six" as "five two nine four two eight"). Only for digits: beside a run of
// keywords (the card words) it took the second set's inserted first words off but let long sentences through as
// runs of card words; in the grammar pass alone, the two passes' scores no longer compare.
//
// The uncovered speech: out-of-grammar clips of the tuning fold that cover too little leave 910 ms or more
// uncovered, bar lone "oh"s (now decoys); 300 ms is about a short word. The decoy "oh": a lone "oh" was most of
// the false accepts against digits on both folds. Beside every grammar it took 2 more false accepts of the tuning
// fold off at 16 kHz and 1 at 8 kHz, but the wider search scores answers a little lower, and the second set's
// longest run of card words was lost at 8 kHz. A wider list of common words lost a held-out "up".
//
// The extra words: over both call paths (traced), every answer with two or more words beyond the
// open words was a false accept; the right ones had at most one more (a second-set card answer's inserted first
// word, still fewer errors than the open words). A structural bound, not searched: none (0) lost those answers.
//
// The check of runs with number words: nothing to fit. Over both call paths it heard a lacking digit
// in no answer of the card words, and in every digit string that was taken as card words.
export const defaults: ExpectedSearchOptions = {
  maxAcousticLossPerFrame: 7.5,
  minSpeechCoverage: 0.6,
  maxUncoveredSpeechMs: 300,
  maxExtraWords: 1,
  digitsWordInsertionPenalty: 0.02,
  digitsDecoys: ['oh'],
  checkRunsForDigits: true,
};

/** Words that are a whole yes or no answer by themselves (not "right", "okay": choices may use them). */
const bareYesNo = new Set(['yes', 'yeah', 'yep', 'no', 'nope']);

const expectedSearch = 'expected';
const checkSearch = 'checked';
const openSearch = 'heard';
/** The decoder's own search, with the language model. */
const languageModelSearch = 'default';
/** sphinxbase's CMN_BATCH. */
const batchCmn = 1;

/**
 * The grammar side of recognition with expectations. While expectations are set, the utterance's audio is
 * kept; when it ends, after the open-vocabulary search has produced its result, the same audio is decoded
 * again with the expectations' grammar, from the same cepstral mean the first pass started with, and the
 * result that fits the audio better (see `maxAcousticLossPerFrame`) is returned.
 */
export class ExpectedSearch {
  /** The grammar of this utterance, and of the next (expectations set mid-utterance wait for it). */
  private grammar: ExpectedGrammar | undefined;
  private next: ExpectedGrammar | undefined;
  /** Per search name, the grammar and insertion penalty it was made with. */
  private readonly installed = new Map<string, string>();
  private audio: Int16Array[] = [];

  constructor(
    private readonly lib: PocketSphinxLibrary,
    private readonly handle: unknown,
    private readonly cepstralMean: CepstralMeanState | undefined,
    private readonly options: ExpectedSearchOptions = defaults,
  ) {}

  /** Compiles the expectations (used from the next utterance on); false when they constrain nothing. */
  set(expectations: readonly Expectation[] | undefined): boolean {
    const knows = (word: string) => this.lib.knowsWord(this.handle, word);
    const jsgf = isOpenVocabulary(expectations) ? undefined : compileGrammar(expectations!, knows);
    if (jsgf === undefined) {
      this.next = undefined;
      return false;
    }
    const digits = expectations!.some((e) => e.kind === 'digits');
    const wordInsertionPenalty = digits ? this.options.digitsWordInsertionPenalty : undefined;
    const decoys = digits ? this.options.digitsDecoys.filter(knows) : [];
    const checked = this.options.checkRunsForDigits ? compileGrammar(expectations!, knows, { runDecoys: true }) : jsgf;
    this.next = { jsgf, search: withDecoys(jsgf, decoys), wordInsertionPenalty, ...(checked !== jsgf ? { check: checked } : {}) };
    return true;
  }

  utteranceStarts(): void {
    this.grammar = this.next;
    this.audio = [];
  }

  get hasGrammar(): boolean {
    return this.grammar !== undefined;
  }

  /** Drops the last utterance's audio (a pooled decoder should not keep a call's audio). */
  forgetAudio(): void {
    this.audio = [];
  }

  /** The audio of the utterance so far (kept while it has a grammar). */
  utteranceAudio(): Int16Array {
    return concatSamples(this.audio);
  }

  /** The pieces of audio the utterance was written in so far (kept while it has a grammar). */
  heardPieces(): readonly Int16Array[] {
    return this.audio;
  }

  heard(pcm: Int16Array): void {
    if (this.grammar && pcm.length > 0) this.audio.push(pcm);
  }

  /** `open` (the language model's result) or the grammar's, whichever fits the utterance's audio better. */
  choose(open: Decoded): Decoded {
    if (!this.grammar || this.audio.length === 0) return open;
    const rejected = marked(open, false);
    if (!open.hypothesis.text) return rejected;
    // Already an expected answer: decoding again could only confirm it, and would cost a third of the decode.
    if (grammarAccepts(this.grammar.jsgf, open.hypothesis.text)) return marked(open, true);
    // A lone yes or no, heard as such by open vocabulary, is the caller's answer even when the question wanted
    // something else ("no" beside "go" or "oh"): short, frequent words, so close to others acoustically that
    // the grammar's nearest answer would fit them about as well. (On the tuning fold no expected answer is
    // heard as one; folds.json.)
    if (bareYesNo.has(open.hypothesis.text.trim())) return rejected;
    // Both passes hear the quiet gated to zeros, so that line noise stays out of their cepstral mean.
    const audio = gateSilence(this.utteranceAudio());
    const endMean = this.cepstralMean?.snapshot();
    try {
      const { jsgf, search, wordInsertionPenalty, check } = this.grammar;
      const expected = this.decode(expectedSearch, search.jsgf, wordInsertionPenalty, audio);
      if (!expected.hypothesis.text || search.decoys.has(expected.hypothesis.text)) return rejected;
      // The open words aligned to the same audio by the same kind of search, so that the two acoustic scores
      // compare like with like.
      const heard = this.alignedOpenWords(open, jsgf, wordInsertionPenalty, audio);
      if (heard === 'nothing') return rejected;
      if ('answer' in heard) return marked(heard.answer, true);
      const { aligned } = heard;
      // No alignment even so: the open words fit worse than the grammar's path, whatever the loss; coverage is
      // then measured against their own word times.
      const unaligned = aligned.frames === 0;
      const lossPerFrame = unaligned ? 0 : (aligned.acousticScore - expected.acousticScore) / Math.max(1, expected.frames);
      const reference = speechMs(unaligned ? heard.open : aligned);
      const covered = speechMs(expected);
      const leavesSpeech = covered < this.options.minSpeechCoverage * reference && reference - covered > this.options.maxUncoveredSpeechMs;
      const padded = wordCount(expected) - wordCount(open) > this.options.maxExtraWords;
      if (lossPerFrame > this.options.maxAcousticLossPerFrame || leavesSpeech || padded) return rejected;
      if (check && this.hearsDecoy(jsgf, check, wordInsertionPenalty, audio)) return rejected;
      return marked(expected, true);
    } finally {
      this.lib.useSearch(this.handle, languageModelSearch);
      if (endMean) this.cepstralMean!.restoreSnapshot(endMean);
    }
  }

  /**
   * The open words aligned to `audio` as the grammar passes hear it. The live words may not align: heard through
   * the line's noise and the live mean, they can name sound the gate has set to zeros ("seven of clubs staff"
   * under -60 dBFS of noise). The language model then hears `audio` as the grammar passes do, and its words are
   * aligned instead; when they are already an answer of `jsgf`, they are the `answer`.
   */
  private alignedOpenWords(open: Decoded, jsgf: string, wordInsertionPenalty: number | undefined, audio: Int16Array): { open: Decoded; aligned: Decoded } | { answer: Decoded } | 'nothing' {
    const aligned = this.decode(openSearch, alignmentGrammar(open.hypothesis.text), wordInsertionPenalty, audio);
    if (aligned.frames > 0) return { open, aligned };
    const relistened = this.decode(languageModelSearch, undefined, undefined, audio);
    if (!relistened.hypothesis.text) return 'nothing';
    if (grammarAccepts(jsgf, relistened.hypothesis.text)) return { answer: relistened };
    return { open: relistened, aligned: this.decode(openSearch, alignmentGrammar(relistened.hypothesis.text), wordInsertionPenalty, audio) };
  }

  /** Whether the `check` grammar's search hears in `audio` what `jsgf` does not take (one of its decoys). */
  private hearsDecoy(jsgf: string, check: string, wordInsertionPenalty: number | undefined, audio: Int16Array): boolean {
    const heard = this.decode(checkSearch, check, wordInsertionPenalty, audio).hypothesis.text;
    return heard !== '' && !grammarAccepts(jsgf, heard);
  }

  /**
   * Decodes `audio` as one whole utterance with a search (a grammar search made from `jsgf`, or the language
   * model's), normalised by its own cepstral mean (batch CMN): a short answer early in a call would otherwise be
   * heard through a mean not yet adapted to the caller's line.
   */
  private decode(name: string, jsgf: string | undefined, wordInsertionPenalty: number | undefined, audio: Int16Array): Decoded {
    const now = this.cepstralMean?.snapshot();
    if (now) this.cepstralMean!.restoreSnapshot({ ...now, mode: batchCmn });
    const made = `${wordInsertionPenalty}\n${jsgf}`;
    if (jsgf !== undefined && this.installed.get(name) !== made) {
      if (!this.lib.setGrammar(this.handle, name, jsgf, wordInsertionPenalty)) throw new Error(`pocketsphinx rejected the grammar: ${jsgf}`);
      this.installed.set(name, made);
    }
    if (!this.lib.useSearch(this.handle, name)) throw new Error(`pocketsphinx could not switch to the ${name} search`);
    if (this.lib.startUtterance(this.handle) < 0) throw new Error('ps_start_utt failed');
    if (this.lib.processRaw(this.handle, audio, true) < 0) throw new Error('ps_process_raw failed');
    this.lib.endUtterance(this.handle);
    return decodedResult(this.lib, this.handle);
  }
}

/**
 * A compiled grammar, the one its search decodes with (with decoys), and the insertion penalty both passes decode
 * with (undefined: the decoder's own).
 */
interface ExpectedGrammar {
  jsgf: string;
  search: { jsgf: string; decoys: ReadonlySet<string> };
  wordInsertionPenalty: number | undefined;
  /** The grammar an answer is checked with (`checkRunsForDigits`). */
  check?: string;
}

/** `decoded`, its hypothesis marked as an expected answer or not. */
function marked(decoded: Decoded, expected: boolean): Decoded {
  return { ...decoded, hypothesis: { ...decoded.hypothesis, expected } };
}

/** Milliseconds of the utterance taken by words (not silence or noise). */
function speechMs(decoded: Decoded): number {
  return decoded.hypothesis.words.reduce((sum, word) => sum + word.endMs - word.startMs, 0);
}

function wordCount(decoded: Decoded): number {
  return decoded.hypothesis.text.split(' ').filter((word) => word.length > 0).length;
}

function alignmentGrammar(text: string): string {
  return `#JSGF V1.0;\ngrammar heard;\npublic <heard> = ${text};`;
}
