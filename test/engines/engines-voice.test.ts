import { afterAll, describe, expect, test } from 'vitest';
import { FliteEngine, FliteProgram, ReferenceTooShortError, analyzeVoice, nearestVoice } from '../../src/engines/index.js';
import { noise, speechFixtures } from '../support/engines-fixtures.js';

const fixtures = speechFixtures();
const engine = new FliteEngine();
afterAll(() => FliteProgram.shared().shutdown());

describe('reference voice analysis', () => {
  test('female (slt) fixtures measure well above male (rms) ones', () => {
    for (const fixture of fixtures) {
      const { pitchHz } = analyzeVoice(fixture.pcm);
      if (fixture.voice === 'slt') expect(pitchHz, fixture.file).toBeGreaterThan(160);
      else expect(pitchHz, fixture.file).toBeLessThan(115);
    }
  });

  test('a pure tone measures at its frequency', () => {
    const tone = Int16Array.from({ length: 16000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 140 * i) / 16000)));
    expect(analyzeVoice(tone).pitchHz).toBeCloseTo(140, 0);
  });

  test('8 kHz input is measured at the same pitch', () => {
    const tone = Int16Array.from({ length: 8000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 200 * i) / 8000)));
    expect(Math.abs(analyzeVoice(tone, 8000).pitchHz - 200)).toBeLessThan(3);
  });

  test('speaking rate follows the synthesis rate', async () => {
    const text = 'Hello, I would like to book a table for two people tonight. What time do you open on Saturday?';
    const slow = analyzeVoice((await engine.synthesize(text, { voice: 'slt', rate: 0.5 })).samples);
    const normal = analyzeVoice((await engine.synthesize(text, { voice: 'slt' })).samples);
    const fast = analyzeVoice((await engine.synthesize(text, { voice: 'slt', rate: 1.6 })).samples);
    expect(slow.syllablesPerSecond).toBeLessThan(normal.syllablesPerSecond);
    expect(normal.syllablesPerSecond).toBeLessThan(fast.syllablesPerSecond);
  });

  test('silence or noise alone is too short a reference (400)', () => {
    expect(() => analyzeVoice(new Int16Array(32000))).toThrow(ReferenceTooShortError);
    expect(() => analyzeVoice(noise(32000, 2000))).toThrow(/voiced speech/);
  });
});

describe('nearest flite voice', () => {
  test('slt references map to slt near their pitch; rms references to a male voice', () => {
    const slt = nearestVoice(analyzeVoice(fixtures.find((f) => f.file === 'slt_00.wav')!.pcm));
    const rms = nearestVoice(analyzeVoice(fixtures.find((f) => f.file === 'rms_00.wav')!.pcm));
    expect(slt.voice).toBe('slt');
    expect(rms.voice).toBe('rms');
    expect(slt.pitchHz).toBeGreaterThan(165);
    expect(slt.rate).toBeGreaterThan(0.7);
    expect(slt.rate).toBeLessThan(1.4);
    expect(rms.rate).toBeGreaterThan(0.7);
    expect(rms.rate).toBeLessThan(1.4);
  });

  test('a low male voice away from rms gets a pitch-controllable voice at its pitch', () => {
    const settings = nearestVoice({ pitchHz: 130, meanPitchHz: 130, voicedMs: 2000, syllablesPerSecond: 4, durationMs: 3000 });
    expect(settings.voice).toBe('awb');
    expect(settings.pitchHz).toBeGreaterThan(130);
  });

  test('the cloned settings reproduce the reference pitch', async () => {
    const reference = fixtures.find((f) => f.file === 'slt_01.wav')!;
    const target = analyzeVoice(reference.pcm);
    const settings = nearestVoice({ ...target, pitchHz: target.pitchHz - 40 });
    const result = await engine.synthesize(reference.text, settings);
    expect(Math.abs(analyzeVoice(result.samples).pitchHz - (target.pitchHz - 40))).toBeLessThan(12);
  });
});
