import { afterAll, describe, expect, test } from 'vitest';
import {
  FliteEngine,
  FliteProgram,
  InvalidVoiceSettingsError,
  PocketSphinxEngine,
  analyzeVoice,
  fliteVoices,
} from '../../src/engines/index.js';
import { rms } from '../support/engines-fixtures.js';

const engine = new FliteEngine();
const sentence = 'Hello, I would like to book a table for two people tonight.';

afterAll(() => FliteProgram.shared().shutdown());

const seconds = (r: { samples: Int16Array; sampleRate: number }) => r.samples.length / r.sampleRate;

describe('flite synthesis', () => {
  test.each(['slt', 'rms', 'awb', 'kal16'] as const)('%s speaks a 12-word sentence in a plausible time at 16 kHz', async (voice) => {
    const result = await engine.synthesize(sentence, { voice });
    expect(result.sampleRate).toBe(16000);
    expect(seconds(result)).toBeGreaterThan(2);
    expect(seconds(result)).toBeLessThan(6);
    expect(rms(result.samples)).toBeGreaterThan(500);
  });

  test('kal is 8 kHz', async () => {
    const result = await engine.synthesize('Good morning.', { voice: 'kal' });
    expect(result.sampleRate).toBe(8000);
    expect(seconds(result)).toBeGreaterThan(0.5);
  });

  test('rate 2.0 is shorter than rate 0.5 (about four times)', async () => {
    const fast = await engine.synthesize(sentence, { voice: 'slt', rate: 2 });
    const slow = await engine.synthesize(sentence, { voice: 'slt', rate: 0.5 });
    const ratio = seconds(slow) / seconds(fast);
    expect(ratio).toBeGreaterThan(3);
    expect(ratio).toBeLessThan(5);
  });

  test('a pitch target moves the measured F0', async () => {
    const low = analyzeVoice((await engine.synthesize(sentence, { voice: 'slt', pitchHz: 120 })).samples);
    const high = analyzeVoice((await engine.synthesize(sentence, { voice: 'slt', pitchHz: 220 })).samples);
    expect(high.pitchHz - low.pitchHz).toBeGreaterThan(70);
    expect(Math.abs(low.pitchHz - 120)).toBeLessThan(20);
  });

  test('the voice table pitches match what the voices produce', async () => {
    for (const voice of ['slt', 'rms', 'awb'] as const) {
      const result = await engine.synthesize(sentence, { voice });
      const measured = analyzeVoice(result.samples, result.sampleRate).pitchHz;
      expect(Math.abs(measured - fliteVoices[voice].defaultPitchHz)).toBeLessThan(12);
    }
  });

  test('word timings follow the words in order and end near the end of the audio', async () => {
    const result = await engine.synthesize(sentence, { voice: 'rms' });
    expect(result.words.map((w) => w.word)).toEqual(['Hello', 'I', 'would', 'like', 'to', 'book', 'a', 'table', 'for', 'two', 'people', 'tonight']);
    const totalMs = seconds(result) * 1000;
    for (let i = 0; i < result.words.length; i++) {
      const w = result.words[i]!;
      expect(w.endMs).toBeGreaterThan(w.startMs);
      if (i > 0) expect(w.startMs).toBeGreaterThanOrEqual(result.words[i - 1]!.endMs);
    }
    expect(result.words[0]!.startMs).toBeGreaterThan(50);
    expect(result.words.at(-1)!.endMs).toBeGreaterThan(totalMs - 500);
    expect(result.words.at(-1)!.endMs).toBeLessThanOrEqual(totalMs + 1);
    // "tonight" is longer than "a".
    const length = (word: string) => result.words.find((w) => w.word === word)!;
    expect(length('tonight').endMs - length('tonight').startMs).toBeGreaterThan(length('a').endMs - length('a').startMs);
  });

  test('word times agree with where the recogniser hears the words', async () => {
    const result = await engine.synthesize('Please transfer me to a human agent.', { voice: 'rms' });
    const recognizer = new PocketSphinxEngine();
    const heard = await recognizer.transcribe(result.samples);
    await recognizer.shutdown();
    const matched = result.words.filter((w) => heard.words.some((h) => h.word === w.word.toLowerCase()));
    expect(matched.length).toBeGreaterThanOrEqual(5);
    for (const word of matched) {
      const h = heard.words.find((x) => x.word === word.word.toLowerCase())!;
      expect(Math.abs(h.startMs - word.startMs), word.word).toBeLessThan(80);
      expect(Math.abs(h.endMs - word.endMs), word.word).toBeLessThan(80);
    }
  });

  test('the pause at a comma falls between words, not inside one', async () => {
    const result = await engine.synthesize('Well, maybe later.', { voice: 'slt' });
    const [well, maybe] = result.words;
    expect(maybe!.startMs - well!.endMs).toBeGreaterThan(50);
  });

  test('word times scale with the rate', async () => {
    const normal = await engine.synthesize(sentence, { voice: 'slt' });
    const slow = await engine.synthesize(sentence, { voice: 'slt', rate: 0.5 });
    expect(slow.words.at(-1)!.startMs / normal.words.at(-1)!.startMs).toBeGreaterThan(1.7);
  });

  test('several sentences in one call keep their word times on one timeline', async () => {
    const result = await engine.synthesize('It is late. We are closed. Please call again tomorrow.', { voice: 'slt' });
    expect(result.words).toHaveLength(10);
    expect(result.words.at(-1)!.endMs).toBeGreaterThan(seconds(result) * 1000 - 500);
  });

  test('empty or punctuation-only text gives empty audio without running flite', async () => {
    const result = await engine.synthesize('  ...  ', { voice: 'slt' });
    expect(result.samples.length).toBe(0);
    expect(result.words).toEqual([]);
  });

  test('bad settings are rejected with a 400-class error', async () => {
    await expect(engine.synthesize('hi', { voice: 'nope' as 'slt' })).rejects.toBeInstanceOf(InvalidVoiceSettingsError);
    await expect(engine.synthesize('hi', { voice: 'slt', rate: 0 })).rejects.toMatchObject({ status: 400 });
    await expect(engine.synthesize('hi', { voice: 'slt', pitchHz: 5000 })).rejects.toMatchObject({ status: 400 });
  });

  test('an aborted signal stops the call', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(engine.synthesize(sentence, { voice: 'slt' }, controller.signal)).rejects.toThrow();
  });

  test('concurrent calls all complete with their own audio', async () => {
    const texts = ['One.', 'Two two.', 'Three three three.', 'Four four four four.'];
    const results = await Promise.all(texts.map((t) => engine.synthesize(t, { voice: 'kal16' })));
    results.forEach((r, i) => expect(r.words).toHaveLength(i + 1));
  });

  test('synthesis does not block the event loop', async () => {
    let worstGapMs = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      worstGapMs = Math.max(worstGapMs, now - last);
      last = now;
    }, 5);
    const result = await engine.synthesize(`${sentence} ${sentence} ${sentence}`, { voice: 'rms' });
    clearInterval(timer);
    // On this thread the run alone would block for ~0.02 x the audio (12 s here), plus the word lookup;
    // the bound leaves room for scheduling noise on a loaded 2-core machine.
    expect(result.samples.length / result.sampleRate).toBeGreaterThan(9);
    expect(worstGapMs).toBeLessThan(120);
  });
});

describe('word timing from flite phones', async () => {
  const { alignWords, estimateWords, parseSegmentDurations } = await import('../../src/engines/flite/phone-alignment.js');

  test('segment durations of several utterances share one timeline', () => {
    const phones = parseSegmentDurations('pau:0.100 hh:0.200 ay:0.300 pau:0.400 \npau:0.050 b:0.150 ay:0.250 pau:0.300 \n');
    expect(phones.map((p) => p.phone)).toEqual(['pau', 'hh', 'ay', 'pau', 'pau', 'b', 'ay', 'pau']);
    expect(phones[5]).toEqual({ phone: 'b', startMs: 450, endMs: 550 });
  });

  test('alignment tolerates pronunciations that changed in context', () => {
    const phones = parseSegmentDurations('pau:0.1 dh:0.15 iy:0.2 ae:0.3 p:0.35 ax:0.4 l:0.5 pau:0.6');
    // "the" is "dh ax" alone but "dh iy" before a vowel.
    const words = alignWords(['the', 'apple'], [['dh', 'ax'], ['ae', 'p', 'ax', 'l']], phones);
    expect(words).toEqual([
      { word: 'the', startMs: 100, endMs: 200 },
      { word: 'apple', startMs: 200, endMs: 500 },
    ]);
  });

  test('the estimate shares speech time by word length and skips pauses', () => {
    const phones = parseSegmentDurations('pau:0.1 a:0.2 b:0.3 pau:0.5 c:0.6 d:0.7 pau:0.8');
    const words = estimateWords(['ab', 'cd'], phones);
    expect(words[0]).toEqual({ word: 'ab', startMs: 100, endMs: 300 });
    expect(words[1]!.startMs).toBe(500);
    expect(words[1]!.endMs).toBe(700);
  });
});
