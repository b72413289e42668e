import { describe, expect, it } from 'vitest';
import { createFrame, resample, Resampler, RESAMPLER_RATES, UnsupportedAudioSettingError } from '../../src/audio/index.js';
import { joinSamples, speech } from '../support/audio-signal.js';

/** Deterministic pseudo-random chunk sizes (1..max). */
function chunkSizes(seed: number, max: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return 1 + (state % max);
  };
}

function sine(frequency: number, rate: number, seconds: number, amplitude = 10000): Int16Array {
  return Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * frequency * i) / rate)),
  );
}

describe('Resampler', () => {
  const voice = speech('slt_00');
  const pairs: [number, number][] = [
    [16000, 48000],
    [16000, 8000],
    [8000, 16000],
    [44100, 16000],
    [16000, 22050],
    [24000, 44100],
    [48000, 16000],
    [32000, 24000],
  ];

  for (const [from, to] of pairs) {
    it(`${from} -> ${to} Hz: random-sized chunks give the whole-buffer output`, async () => {
      const input = from === 16000 ? voice : await resample(voice, 16000, from);
      const whole = await resample(input, from, to);
      expect(whole.length).toBe(Math.round((input.length * to) / from));
      const resampler = await Resampler.create(from, to);
      const next = chunkSizes(from + to, 2000);
      const parts: Int16Array[] = [];
      for (let offset = 0; offset < input.length; ) {
        const size = next();
        parts.push(resampler.process(input.subarray(offset, offset + size)));
        offset += size;
      }
      parts.push(resampler.flush());
      resampler.destroy();
      const chunked = joinSamples(parts);
      expect(chunked.length).toBe(whole.length);
      let maxDifference = 0;
      for (let i = 0; i < whole.length; i++) maxDifference = Math.max(maxDifference, Math.abs(chunked[i]! - whole[i]!));
      expect(maxDifference).toBeLessThanOrEqual(2);
    });
  }

  it('keeps a sine in phase (no delay) and free of clicks at chunk borders', async () => {
    const input = sine(440, 16000, 1);
    const resampler = await Resampler.create(16000, 48000);
    const parts: Int16Array[] = [];
    for (let offset = 0; offset < input.length; offset += 160) parts.push(resampler.process(input.subarray(offset, offset + 160)));
    parts.push(resampler.flush());
    const output = joinSamples(parts);
    let worst = 0;
    for (let i = 480; i < output.length - 480; i++) {
      worst = Math.max(worst, Math.abs(output[i]! - 10000 * Math.sin((2 * Math.PI * 440 * i) / 48000)));
    }
    expect(worst).toBeLessThan(60);
  });

  it('removes content above the new Nyquist frequency when downsampling', async () => {
    const tone = sine(6000, 16000, 0.5);
    const down = await resample(tone, 16000, 8000);
    const middle = down.subarray(400, 3600);
    const level = Math.sqrt(middle.reduce((sum, s) => sum + s * s, 0) / middle.length);
    expect(level).toBeLessThan(100);
  });

  it('passes same-rate audio through unchanged', async () => {
    const resampler = await Resampler.create(16000, 16000);
    expect(resampler.process(voice)).toEqual(voice);
    expect(resampler.flush().length).toBe(0);
    expect(await resample(voice, 16000, 16000)).toEqual(voice);
  });

  it('stamps output frames with the time of their first sample', async () => {
    const resampler = await Resampler.create(16000, 48000);
    const first = resampler.processFrame(createFrame(voice.subarray(0, 320), 16000, 1000));
    const second = resampler.processFrame(createFrame(voice.subarray(320, 640), 16000, 1020));
    expect(first.timestampMs).toBe(1000);
    expect(second.timestampMs).toBeCloseTo(1000 + (first.samples.length * 1000) / 48000, 6);
    expect(second.sampleRate).toBe(48000);
    resampler.destroy();
  });

  it('converts between every pair of supported rates with the expected length', async () => {
    const input = sine(300, 8000, 0.25);
    for (const from of RESAMPLER_RATES) {
      const source = await resample(input, 8000, from);
      for (const to of RESAMPLER_RATES) {
        expect((await resample(source, from, to)).length).toBe(Math.round((source.length * to) / from));
      }
    }
  });

  it('handles odd upload rates such as 11025 Hz', async () => {
    const odd = await resample(voice, 16000, 11025);
    expect(odd.length).toBe(Math.round((voice.length * 11025) / 16000));
    expect((await resample(odd, 11025, 16000)).length).toBe(voice.length);
  });

  it('rejects rates that are not integers in the supported range, naming the range', async () => {
    await expect(Resampler.create(0, 16000)).rejects.toThrow(UnsupportedAudioSettingError);
    await expect(Resampler.create(16000.5, 16000)).rejects.toThrow(UnsupportedAudioSettingError);
    await expect(resample(voice, 16000, 384000)).rejects.toThrow(/Supported: integers from 4000 to 192000 Hz/);
  });
});
