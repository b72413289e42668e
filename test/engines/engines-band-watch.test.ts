import { describe, expect, test } from 'vitest';
import { LowPassFilter, resample } from '../../src/audio/index.js';
import { BandWatch, bandOf } from '../../src/engines/pocketsphinx/band-watch.js';
import { recordingBand, telephoneNarrowing, UtteranceBand } from '../../src/engines/pocketsphinx/utterance-band.js';
import { readPcmWav, speechFixtures, withLineNoise } from '../support/engines-fixtures.js';

const human = (file: string) => readPcmWav(`test/fixtures/human/${file}`).samples;
/** 0.3 s of what the line carries before the caller speaks, as a voice detector's pre-roll gives it. */
const withLead = (pcm: Int16Array) => {
  const out = new Int16Array(4800 + pcm.length);
  out.set(pcm, 4800);
  return out;
};
/** Wide-band speech through an 8 kHz link and back: what a phone call carried at 16 kHz is. */
const narrowed = async (pcm: Int16Array) => resample(await resample(pcm, 16000, 8000), 8000, 16000);

/** Feeds `pcm` in 20 ms pieces; the verdict and the seconds heard when it came. */
function watch(pcm: Int16Array): { verdict: string | undefined; atSeconds?: number } {
  const band = new BandWatch();
  for (let at = 0; at < pcm.length; at += 320) {
    const verdict = band.hear(pcm.subarray(at, at + 320));
    if (verdict) return { verdict, atSeconds: (at + 320) / 16000 };
  }
  return { verdict: undefined };
}

describe('telling telephone audio carried at 16 kHz from wide-band audio', () => {
  test('an 8 kHz recording in a 16 kHz file is telephone audio, after under half a second of its speech', () => {
    // dev_06: "seven" (FSDD, recorded at 8 kHz); its speech starts about 0.5 s into the lead and clip.
    const heard = watch(withLead(human('dev_06.wav')));
    expect(heard.verdict).toBe('telephone');
    expect(heard.atSeconds).toBeLessThan(1.1);
  });

  test('wide-band human and synthetic speech is wide', () => {
    for (const file of ['dev_03.wav', 'dev_12.wav', 'dev_15.wav']) expect(bandOf(withLead(human(file))), file).toBe('wide');
    for (const fixture of speechFixtures()) expect(bandOf(fixture.pcm), fixture.file).toBe('wide');
  });

  test('the same wide-band speech through an 8 kHz link is telephone audio', async () => {
    for (const file of ['dev_03.wav', 'dev_12.wav', 'dev_15.wav']) expect(bandOf(withLead(await narrowed(human(file)))), file).toBe('telephone');
  });

  test("line noise above 4 kHz is the line's, not speech: telephone audio under -60 dBFS of it stays telephone audio", () => {
    for (const file of ['dev_06.wav', 'dev_08.wav', 'dev_11.wav']) {
      expect(bandOf(withLead(withLineNoise(human(file), -60, 2000))), file).toBe('telephone');
    }
    expect(bandOf(withLead(withLineNoise(human('dev_12.wav'), -60, 2000)))).toBe('wide');
  });

  test('no verdict without enough speech: silence, a faint hiss, a word of a quarter second', () => {
    expect(bandOf(new Int16Array(16000 * 3))).toBeUndefined();
    expect(bandOf(withLineNoise(new Int16Array(16000), -70, 2000))).toBeUndefined();
    // dev_05: "up", about 0.24 s loud.
    expect(bandOf(withLead(human('dev_05.wav')))).toBeUndefined();
  });

  test('the verdict does not depend on how the audio is cut into pieces, and is kept once given', () => {
    const pcm = withLead(human('dev_08.wav'));
    const inOnePiece = new BandWatch();
    expect(inOnePiece.hear(pcm)).toBe('telephone');
    const inOddPieces = new BandWatch();
    for (let at = 0; at < pcm.length; at += 333) inOddPieces.hear(pcm.subarray(at, at + 333));
    expect(inOddPieces.verdict()).toBe('telephone');
    expect(inOddPieces.listening).toBe(false);
    expect(inOddPieces.hear(human('dev_12.wav'))).toBe('telephone');
  });
});

describe('the band an utterance of a call is heard in', () => {
  /** Feeds `pcm` in 20 ms pieces; what the decoder was given, and what it was given again after a switch. */
  function hearUtterance(band: UtteranceBand, pcm: Int16Array) {
    const given: Int16Array[] = [];
    let again: Int16Array[] | undefined;
    for (let at = 0; at < pcm.length; at += 320) {
      given.push(band.hear(pcm.subarray(at, at + 320)));
      again ??= band.switched();
    }
    return { given, again };
  }
  const samples = (pieces: readonly Int16Array[]) => pieces.reduce((n, p) => n + p.length, 0);

  test('wide-band speech begun in the wide band is given to the decoder as it came, and nothing is heard again', () => {
    const pcm = withLead(human('dev_12.wav'));
    const band = new UtteranceBand(false);
    const { given, again } = hearUtterance(band, pcm);
    expect(again).toBeUndefined();
    expect(band.telephone).toBe(false);
    expect(Int16Array.from(given.flatMap((p) => [...p]))).toEqual(pcm);
  });

  test('telephone audio begun in the wide band switches once, and all of it is heard again narrowed to the band', () => {
    const pcm = withLead(withLineNoise(human('dev_08.wav'), -60, 500));
    const band = new UtteranceBand(false);
    const { given, again } = hearUtterance(band, pcm);
    expect(band.telephone).toBe(true);
    expect(again).toBeDefined();
    expect(band.switched()).toBeUndefined();
    // Narrowed: the line's noise above 4 kHz is gone, and the filter holds back its look-ahead at the end.
    const narrowed = [...again!, ...given.slice(again!.length)];
    expect(samples(narrowed)).toBe(pcm.length - telephoneNarrowing().lookahead);
    const all = Int16Array.from(narrowed.flatMap((p) => [...p]));
    expect(all).toEqual(LowPassFilter.apply(pcm, 3800, 16000).subarray(0, all.length));
  });

  test('an utterance begun in the telephone band is narrowed from its first sample, and wide speech switches it back', () => {
    const pcm = withLead(human('dev_12.wav'));
    const band = new UtteranceBand(true);
    const first = band.hear(pcm.subarray(0, 320));
    expect(first.length).toBeLessThan(320);
    const { again } = hearUtterance(band, pcm.subarray(320));
    expect(band.telephone).toBe(false);
    // Heard again as it came: every sample since the utterance began in this band.
    expect(samples(again!)).toBeGreaterThan(0);
    expect(again!.every((piece) => piece.length === 320)).toBe(true);
  });

  test('a whole recording is narrowed only when it is telephone audio', () => {
    const wide = withLead(human('dev_12.wav'));
    expect(recordingBand(wide)).toEqual({ telephone: false, pcm: wide });
    const telephone = withLead(withLineNoise(human('dev_08.wav'), -60, 500));
    const heard = recordingBand(telephone);
    expect(heard.telephone).toBe(true);
    expect(heard.pcm).toEqual(LowPassFilter.apply(telephone, 3800, 16000));
  });
});

describe('what the band watch counts as speech', () => {
  /**
   * Syllables of tones (200 ms on, 100 ms of -80 dBFS line noise between), each tone at `dbfs` RMS: `narrow`
   * tones under 4 kHz only, `high` adds a 5.2 kHz tone `highDb` below them.
   */
  function syllables(seconds: number, dbfs: number, highDb?: number): Int16Array {
    const amplitude = 32768 * Math.SQRT2 * 10 ** (dbfs / 20);
    const line = withLineNoise(new Int16Array(Math.round(seconds * 16000)), -80, 0);
    return line.map((noise, i) => {
      if (i % 4800 >= 3200) return noise;
      const t = i / 16000;
      let value = Math.sin(2 * Math.PI * 700 * t) + Math.sin(2 * Math.PI * 1900 * t) + Math.sin(2 * Math.PI * 3100 * t);
      if (highDb !== undefined) value += 10 ** (highDb / 20) * Math.sin(2 * Math.PI * 5200 * t);
      return Math.round(noise + amplitude * value);
    });
  }
  const joined = (...parts: Int16Array[]) => Int16Array.from(parts.flatMap((part) => [...part]));

  test('tones under 4 kHz are telephone audio; with a tone above it 10 dB down, wide; 40 dB down, telephone', () => {
    expect(bandOf(syllables(2, -30))).toBe('telephone');
    expect(bandOf(syllables(2, -30, -10))).toBe('wide');
    expect(bandOf(syllables(2, -30, -40))).toBe('telephone');
  });

  test('under -60 dBFS is not speech: no verdict from syllables at -68 dBFS, a verdict at -52', () => {
    expect(bandOf(syllables(3, -68))).toBeUndefined();
    expect(bandOf(syllables(3, -52))).toBe('telephone');
  });

  test('a steady sound is the line, not speech, however loud: no verdict from 3 s of -30 dBFS hiss', () => {
    expect(bandOf(withLineNoise(new Int16Array(48000), -30, 0))).toBeUndefined();
  });

  test('sounds 30 dB under the loudest are not speech: 0.2 s of loud syllables, then quiet ones, give no verdict', () => {
    const pcm = joined(syllables(0.2, -20), syllables(2, -60, 0));
    expect(bandOf(pcm)).toBeUndefined();
    expect(bandOf(joined(pcm, syllables(1, -20)))).toBe('telephone');
  });

  test('after a minute without a verdict it stops listening, and keeps no verdict', () => {
    const band = new BandWatch();
    band.hear(new Int16Array(16000 * 61));
    expect(band.listening).toBe(false);
    expect(band.hear(syllables(2, -30))).toBeUndefined();
    expect(band.verdict()).toBeUndefined();
  });
});
