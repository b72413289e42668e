/**
 * The grammar passes of recognition with expectations and the choice between their answer and the open
 * words (expected-search.ts), on a library double that records which searches are made and answers each with
 * set words and scores. The native decoder's results on real speech: listening-human-speech.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Expectation } from '../../src/speech/index.js';
import type { PocketSphinxLibrary, Segment } from '../../src/engines/pocketsphinx/sphinx-library.js';
import type { Decoded } from '../../src/engines/pocketsphinx/decoded.js';
import { ExpectedSearch, type ExpectedSearchOptions } from '../../src/engines/pocketsphinx/expected-search.js';

const options: ExpectedSearchOptions = {
  maxAcousticLossPerFrame: 7.5,
  minSpeechCoverage: 0.6,
  maxUncoveredSpeechMs: 300,
  maxExtraWords: 1,
  digitsWordInsertionPenalty: 0.02,
  digitsDecoys: ['oh'],
  checkRunsForDigits: true,
};

interface MadeSearch {
  name: string;
  jsgf: string;
  wordInsertionPenalty: number | undefined;
}

/** What a search answers: words over frames 0-99 (a `<sil>` takes the frames the words leave), and its score. */
interface Answer {
  words: Array<{ word: string; frames: number }>;
  acousticScore: number;
}

/**
 * What each search answers: `expected` (the grammar's), `heard` (an alignment: one answer, or one per aligned
 * text) and `default` (the language model's, heard again as the grammar passes hear the audio).
 */
interface Answers {
  expected: Answer;
  /** The check's (`checked`); the grammar's answer again if not given. */
  checked?: Answer;
  heard: Answer | Record<string, Answer>;
  default?: Answer;
}

/** The searches answer as told. */
function libraryDouble(answers: Answers) {
  const made: MadeSearch[] = [];
  let active = 'default';
  const answerOf = (name: string): Answer => {
    if (name === 'expected') return answers.expected;
    if (name === 'checked') return answers.checked ?? answers.expected;
    if (name === 'default') return answers.default ?? { words: [], acousticScore: 0 };
    const { heard } = answers;
    if (Array.isArray(heard.words)) return heard as Answer;
    const text = made.findLast((m) => m.name === 'heard')!.jsgf.match(/= (.*);$/)![1]!;
    return (heard as Record<string, Answer>)[text] ?? { words: [], acousticScore: 0 };
  };
  const segmentsOf = ({ words, acousticScore }: Answer): Segment[] => {
    if (words.length === 0) return [];
    const list: Segment[] = [];
    let at = 0;
    for (const { word, frames } of words) {
      list.push({ word, startFrame: at, endFrame: at + frames - 1, acousticScore: acousticScore / words.length });
      at += frames;
    }
    if (at < 100) list.push({ word: '<sil>', startFrame: at, endFrame: 99, acousticScore: 0 });
    return list;
  };
  const lib = {
    knowsWord: (_decoder: unknown, _word: string) => true,
    setGrammar: (_decoder: unknown, name: string, jsgf: string, wordInsertionPenalty?: number) => {
      made.push({ name, jsgf, wordInsertionPenalty });
      return true;
    },
    useSearch: (_decoder: unknown, name: string) => {
      active = name;
      return true;
    },
    startUtterance: () => 0,
    processRaw: () => 0,
    endUtterance: () => 0,
    segments: () => segmentsOf(answerOf(active)),
    hypothesis: () => answerOf(active).words.map((w) => w.word).join(' '),
  } as unknown as PocketSphinxLibrary;
  return { lib, made };
}

const speech = Int16Array.from({ length: 16000 }, (_, i) => Math.round(8000 * Math.sin(i / 5)));

/** The open search's result: `text` over frames 0-99. */
function open(text: string, frames = 100): Decoded {
  const words = text.split(' ');
  const ms = (frames * 10) / words.length;
  return { hypothesis: { text, words: words.map((word, i) => ({ word, startMs: i * ms, endMs: (i + 1) * ms })) }, acousticScore: -1000, frames: 100 };
}

/**
 * One utterance with `expectations` set, heard by open vocabulary as `heard`; what was chosen, and the searches made.
 * `knows`: the words the dictionary has (all by default).
 */
function hear(expectations: Expectation[] | undefined, heard: Decoded, answers: Answers, knows = (_word: string) => true) {
  return hearWith(options, expectations, heard, answers, knows);
}

function hearWith(chosenBy: ExpectedSearchOptions, expectations: Expectation[] | undefined, heard: Decoded, answers: Answers, knows = (_word: string) => true) {
  const { lib, made } = libraryDouble(answers);
  lib.knowsWord = (_decoder, word) => knows(word);
  const search = new ExpectedSearch(lib, {}, undefined, chosenBy);
  search.set(expectations);
  search.utteranceStarts();
  search.heard(speech);
  return { chosen: search.choose(heard).hypothesis, made };
}

const fiveNineFourSix: Answer = { words: ['five', 'nine', 'four', 'six'].map((word) => ({ word, frames: 20 })), acousticScore: -1500 };
const openWords: Answer = { words: ['fire', 'and', 'i', 'quote'].map((word) => ({ word, frames: 20 })), acousticScore: -1000 };

describe('the grammar passes with expectations', () => {
  it("takes the grammar's answer when it fits at most maxAcousticLossPerFrame worse than the open words", () => {
    // 500 worse over 100 frames: 5 per frame.
    const { chosen } = hear([{ kind: 'digits' }], open('fire and i quote', 80), { expected: fiveNineFourSix, heard: openWords });
    expect(chosen).toMatchObject({ text: 'five nine four six', expected: true });
  });

  it('returns the open words, marked unexpected, when the grammar fits worse than that', () => {
    const worse = { ...fiveNineFourSix, acousticScore: -1000 - 7.6 * 100 };
    const { chosen } = hear([{ kind: 'digits' }], open('fire and i quote', 80), { expected: worse, heard: openWords });
    expect(chosen).toMatchObject({ text: 'fire and i quote', expected: false });
    const justWithin = { ...fiveNineFourSix, acousticScore: -1000 - 7.5 * 100 };
    expect(hear([{ kind: 'digits' }], open('fire and i quote', 80), { expected: justWithin, heard: openWords }).chosen.expected).toBe(true);
  });

  it("returns the open words when the grammar's words take too little of their time", () => {
    // "six" alone over 20 frames, against the open words' 80: a long answer explained as a short one.
    const short = { words: [{ word: 'six', frames: 20 }], acousticScore: -1000 };
    const { chosen } = hear([{ kind: 'digits' }], open('fire and i quote', 80), { expected: short, heard: openWords });
    expect(chosen).toMatchObject({ text: 'fire and i quote', expected: false });
    const enough = { words: [{ word: 'six', frames: 48 }], acousticScore: -1000 };
    expect(hear([{ kind: 'digits' }], open('fire and i quote', 80), { expected: enough, heard: openWords }).chosen.expected).toBe(true);
  });

  it('returns the open words when the grammar pads them with more than maxExtraWords words', () => {
    // A digit string asked for a card: heard as four words, it is six card words to the grammar (as fitting).
    const cards: Expectation[] = [{ kind: 'phrases', phrases: [], keywords: ['four', 'nine', 'two', 'ace', 'of', 'clubs'] }];
    const heard: Answer = { words: ['for', 'one', 'nine', 'two'].map((word) => ({ word, frames: 20 })), acousticScore: -1000 };
    const cardWords = (text: string): Answer => ({ words: text.split(' ').map((word) => ({ word, frames: 15 })), acousticScore: -1000 });
    const padded = hear(cards, open('for one nine two', 80), { expected: cardWords('four four nine nine ace two'), heard });
    expect(padded.chosen).toMatchObject({ text: 'for one nine two', expected: false });
    const oneMore = hear(cards, open('for one nine two', 80), { expected: cardWords('four four nine nine two'), heard });
    expect(oneMore.chosen).toMatchObject({ text: 'four four nine nine two', expected: true });
  });

  it('returns the open words when the check with the digits a run of keywords lacks hears one, and checks only answers of such runs', () => {
    const cards: Expectation[] = [{ kind: 'phrases', phrases: [], keywords: ['four', 'nine', 'two', 'ace', 'of', 'clubs'] }];
    const words = (text: string): Answer => ({ words: text.split(' ').map((word) => ({ word, frames: 20 })), acousticScore: -1000 });
    const heard = words('for one nine two');
    const read = hear(cards, open('for one nine two', 80), { expected: words('four nine nine two'), heard, checked: words('four one nine two') });
    expect(read.chosen).toMatchObject({ text: 'for one nine two', expected: false });
    expect(read.made.find((m) => m.name === 'checked')!.jsgf).toContain('(four | nine | two | ace | of | clubs | zero | one | three | five | six | seven | eight)+;');
    const answer = hear(cards, open('for one nine two', 80), { expected: words('four nine nine two'), heard });
    expect(answer.chosen).toMatchObject({ text: 'four nine nine two', expected: true });
    // An answer the other rules reject is not checked; nor are answers of other grammars.
    const worse = { ...words('four nine nine two'), acousticScore: -2000 };
    expect(hear(cards, open('for one nine two', 80), { expected: worse, heard }).made.map((m) => m.name)).not.toContain('checked');
    const digits = hear([{ kind: 'digits' }], open('fire and i quote', 80), { expected: fiveNineFourSix, heard: openWords, checked: words('one') });
    expect(digits.chosen).toMatchObject({ text: 'five nine four six', expected: true });
    expect(digits.made.map((m) => m.name)).not.toContain('checked');
    const parcels = hear([{ kind: 'phrases', phrases: [], keywords: ['parcel', 'refund'] }], open('for a', 40), { expected: words('parcel'), heard: words('for a'), checked: words('one') });
    expect(parcels.chosen).toMatchObject({ text: 'parcel', expected: true });
    // A check that hears nothing says nothing against the answer.
    const silent = hear(cards, open('for one nine two', 80), { expected: words('four nine nine two'), heard, checked: { words: [], acousticScore: 0 } });
    expect(silent.chosen).toMatchObject({ text: 'four nine nine two', expected: true });
    // Not when told not to.
    const unchecked = hearWith({ ...options, checkRunsForDigits: false }, cards, open('for one nine two', 80), { expected: words('four nine nine two'), heard, checked: words('four one nine two') });
    expect(unchecked.chosen).toMatchObject({ text: 'four nine nine two', expected: true });
  });

  it('takes an answer that covers too little of the open words if what it leaves is shorter than maxUncoveredSpeechMs', () => {
    // "ah but" over 400 ms: "up" over 180 ms leaves 220 ms (less than a word); over 90 ms it leaves 310.
    const command: Expectation[] = [{ kind: 'choice', options: ['up', 'down'] }];
    const ahBut: Answer = { words: ['ah', 'but'].map((word) => ({ word, frames: 20 })), acousticScore: -1000 };
    const up = (frames: number): Answer => ({ words: [{ word: 'up', frames }], acousticScore: -1000 });
    expect(hear(command, open('ah but', 40), { expected: up(18), heard: ahBut }).chosen).toMatchObject({ text: 'up', expected: true });
    expect(hear(command, open('ah but', 40), { expected: up(9), heard: ahBut }).chosen).toMatchObject({ text: 'ah but', expected: false });
    expect(hear(command, open('ah but', 40), { expected: up(10), heard: ahBut }).chosen.expected).toBe(true);
  });

  it('returns the open words when the grammar search explains the speech as a decoy, and searches with the decoys', () => {
    const oh: Answer = { words: [{ word: 'oh', frames: 30 }], acousticScore: -1000 };
    const { chosen, made } = hear([{ kind: 'digits' }], open('ah but', 40), { expected: oh, heard: oh });
    expect(chosen).toMatchObject({ text: 'ah but', expected: false });
    expect(made[0]).toMatchObject({ name: 'expected' });
    expect(made[0]!.jsgf).toMatch(/public <expected> = <e0> \| <decoy>;[\s\S]*<decoy> = oh;/);
    // Among other digits "oh" is zero, an expected answer.
    const fourOh: Answer = { words: ['four', 'oh'].map((word) => ({ word, frames: 20 })), acousticScore: -1000 };
    expect(hear([{ kind: 'digits' }], open('for a', 40), { expected: fourOh, heard: fourOh }).chosen).toMatchObject({ text: 'four oh', expected: true });
    // Only words of the dictionary (pocketsphinx rejects a grammar with others).
    const withoutOh = hear([{ kind: 'digits' }], open('ah but', 40), { expected: oh, heard: oh }, (word) => word !== 'oh');
    expect(withoutOh.made[0]!.jsgf).not.toContain('<decoy>');
    // Only beside digits: a choice's grammar is searched as it is.
    const choice = hear([{ kind: 'choice', options: ['go', 'stop'] }], open('ah but', 40), { expected: oh, heard: oh });
    expect(choice.made[0]!.jsgf).not.toContain('<decoy>');
    // A decoy the expectations take is an answer.
    const ohChoice = hear([{ kind: 'digits' }, { kind: 'choice', options: ['oh', 'go'] }], open('ah but', 40), { expected: oh, heard: oh });
    expect(ohChoice.made[0]!.jsgf).not.toContain('<decoy>');
    expect(ohChoice.chosen).toMatchObject({ text: 'oh', expected: true });
  });

  it('aligns the words the language model hears in the grammar passes\' audio when the live words cannot be aligned', () => {
    // Live: "fire and i quote staff", the noise heard as "staff" gated to zeros for the grammar passes.
    const live = open('fire and i quote staff', 80);
    const worse = { ...fiveNineFourSix, acousticScore: -1000 - 7.6 * 100 };
    const { chosen, made } = hear([{ kind: 'digits' }], live, { expected: worse, heard: { 'fire and i quote': openWords }, default: openWords });
    expect(chosen).toMatchObject({ text: 'fire and i quote staff', expected: false });
    expect(made.filter((m) => m.name === 'heard').map((m) => m.jsgf.match(/= (.*);$/)![1])).toEqual(['fire and i quote staff', 'fire and i quote']);
    // The language model's search is the decoder's own, used as it is.
    expect(made.map((m) => m.name)).not.toContain('default');
    const within = { ...fiveNineFourSix, acousticScore: -1000 - 7.4 * 100 };
    expect(hear([{ kind: 'digits' }], live, { expected: within, heard: { 'fire and i quote': openWords }, default: openWords }).chosen).toMatchObject({ text: 'five nine four six', expected: true });
  });

  it('takes what the language model hears in the grammar passes\' audio when it is an expected answer', () => {
    const fiveNine: Answer = { words: ['five', 'nine'].map((word) => ({ word, frames: 20 })), acousticScore: -1000 };
    const { chosen } = hear([{ kind: 'digits' }], open('five nine staff', 60), { expected: fiveNineFourSix, heard: {}, default: fiveNine });
    expect(chosen).toMatchObject({ text: 'five nine', expected: true });
  });

  it('returns the live words when the language model hears nothing in the grammar passes\' audio', () => {
    const { chosen } = hear([{ kind: 'digits' }], open('fire and i quote', 80), { expected: fiveNineFourSix, heard: {} });
    expect(chosen).toMatchObject({ text: 'fire and i quote', expected: false });
  });

  it("takes the grammar's answer when neither the live words nor the relistened ones can be aligned, if it covers the relistened words' time", () => {
    // Live: five words over 1 s; relistened: four over 800 ms. "six" over 500 ms covers 62 % of these, 50 % of those.
    const live = open('fire and i quote staff', 100);
    const six = (frames: number): Answer => ({ words: [{ word: 'six', frames }], acousticScore: -1000 });
    expect(hear([{ kind: 'digits' }], live, { expected: six(50), heard: {}, default: openWords }).chosen).toMatchObject({ text: 'six', expected: true });
    expect(hear([{ kind: 'digits' }], live, { expected: six(40), heard: {}, default: openWords }).chosen).toMatchObject({ text: 'fire and i quote staff', expected: false });
  });

  it('takes open words that already are an expected answer without decoding again', () => {
    const { chosen, made } = hear([{ kind: 'digits' }], open('five nine'), { expected: fiveNineFourSix, heard: openWords });
    expect(chosen).toMatchObject({ text: 'five nine', expected: true });
    expect(made).toEqual([]);
  });

  it('keeps a lone no heard by open vocabulary when the expectations do not take it', () => {
    const oh = { words: [{ word: 'oh', frames: 60 }], acousticScore: -1000 };
    const { chosen, made } = hear([{ kind: 'digits' }], open('no'), { expected: oh, heard: oh });
    expect(chosen).toMatchObject({ text: 'no', expected: false });
    expect(made).toEqual([]);
  });

  it('returns the open words as they are without expectations, and unexpected when the grammar finds nothing', () => {
    expect(hear(undefined, open('fire'), { expected: fiveNineFourSix, heard: openWords }).chosen).toEqual(open('fire').hypothesis);
    const nothing = { words: [], acousticScore: 0 };
    expect(hear([{ kind: 'digits' }], open('fire'), { expected: nothing, heard: openWords }).chosen).toMatchObject({ text: 'fire', expected: false });
  });

  it("decodes both passes with the digits' insertion penalty when digits are expected", () => {
    const { made } = hear([{ kind: 'yes-no' }, { kind: 'digits' }], open('fire and i quote', 80), { expected: fiveNineFourSix, heard: openWords });
    expect(made.map((m) => [m.name, m.wordInsertionPenalty])).toEqual([
      ['expected', 0.02],
      ['heard', 0.02],
    ]);
    expect(made[1]!.jsgf).toContain('= fire and i quote;');
  });

  it("keeps the decoder's own penalty in both passes for other expectations", () => {
    const stop = { words: [{ word: 'stop', frames: 60 }], acousticScore: -1000 };
    const { made } = hear([{ kind: 'choice', options: ['go', 'stop'] }], open('stalling', 60), { expected: stop, heard: openWords });
    expect(made.map((m) => [m.name, m.wordInsertionPenalty])).toEqual([
      ['expected', undefined],
      ['heard', undefined],
    ]);
  });

  it('says whether expectations constrain what is heard', () => {
    const search = new ExpectedSearch(libraryDouble({ expected: fiveNineFourSix, heard: openWords }).lib, {}, undefined, options);
    expect(search.set([{ kind: 'digits' }])).toBe(true);
    expect(search.set([{ kind: 'free' }])).toBe(false);
    expect(search.set([{ kind: 'name', names: ['zorblax'] }])).toBe(true);
    expect(search.set(undefined)).toBe(false);
  });

  it('makes a search again when only its insertion penalty changes, and not when nothing does', () => {
    const { lib, made } = libraryDouble({ expected: fiveNineFourSix, heard: openWords });
    const search = new ExpectedSearch(lib, {}, undefined, options);
    const choice: Expectation = { kind: 'choice', options: ['five', 'six'] };
    for (const expectations of [[choice], [choice, { kind: 'digits' }], [choice, { kind: 'digits' }]] as Expectation[][]) {
      search.set(expectations);
      search.utteranceStarts();
      search.heard(speech);
      search.choose(open('fire and i quote', 80));
    }
    // The open words' alignment is the same grammar each time.
    expect(made.filter((m) => m.name === 'heard').map((m) => m.wordInsertionPenalty)).toEqual([undefined, 0.02]);
  });
});
