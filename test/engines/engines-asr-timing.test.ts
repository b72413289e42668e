import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PocketSphinxEngine } from '../../src/engines/index.js';
import { readPcmWav } from '../support/engines-fixtures.js';

// booking-16k.wav: 0.8 s of silence, then each turn (slt_00 3.485 s, slt_05 1.7 s, "goodbye") followed by 2 s of silence.
const secondTurnStartS = 0.8 + 3.485 + 2.0;
const thirdTurnStartS = secondTurnStartS + 1.7 + 2.0;

describe('pocketsphinx word times', () => {
  const engine = new PocketSphinxEngine();
  afterAll(() => engine.shutdown());

  it('places words on the recording timeline, silences included', async () => {
    const { samples } = readPcmWav(join(import.meta.dirname, '../fixtures/calls/booking-16k.wav'));
    const { words } = await engine.transcribe(samples);
    const yes = words.find((w) => w.word === 'yes');
    const lastWord = words.at(-1)!;
    expect(yes, words.map((w) => w.word).join(' ')).toBeDefined();
    expect(yes!.startMs / 1000).toBeGreaterThan(secondTurnStartS - 0.1);
    expect(yes!.startMs / 1000).toBeLessThan(secondTurnStartS + 0.6);
    expect(lastWord.startMs / 1000).toBeGreaterThan(thirdTurnStartS - 0.1);
    expect(lastWord.endMs / 1000).toBeLessThan(samples.length / 16000);
  }, 60_000);
});

describe('voiced regions for whole-utterance decoding', () => {
  it('splits at long silences, keeps padding, and finds nothing in silence', async () => {
    const { voicedRegions } = await import('../../src/engines/pocketsphinx/long-audio.js');
    const burst = (ms: number) => Int16Array.from({ length: ms * 16 }, (_, i) => Math.round(6000 * Math.sin(i / 3)));
    const silence = (ms: number) => new Int16Array(ms * 16);
    const pcm = Int16Array.from([...silence(1000), ...burst(500), ...silence(300), ...burst(400), ...silence(2000), ...burst(600), ...silence(1000)]);
    const regions = voicedRegions({ startSample: 16000, pcm });
    expect(regions.map((r) => [r.startSample / 16 - 1000, r.pcm.length / 16])).toEqual([
      [700, 500 + 300 + 400 + 600],
      [700 + 300 + 1200 + 2000 - 300, 600 + 600],
    ]);
    expect(voicedRegions({ startSample: 0, pcm: silence(3000) })).toEqual([]);
  });
});
