import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AudioFormatError, decodeMp3, decodeOggOpus, encodeWav, enhanceSample, measureSample, parseWav, resample,
} from '../../src/audio/index.js';
import { MediaPool, openEncoder, ReferenceTooShortError } from '../../src/engines/index.js';

const speech = parseWav(readFileSync(new URL('../fixtures/human/dev_01.wav', import.meta.url)));
const pool = new MediaPool({ size: 2 });
afterAll(() => pool.stop());

/** Writes `samples` in pieces of 0.5 s, then ends; returns the concatenated file. */
async function encodeAll(format: 'mp3' | 'opus' | 'wav', samples: Int16Array, inputSampleRate: number): Promise<Uint8Array> {
  const encoder = await openEncoder({ format, inputSampleRate, ...(format === 'wav' ? { sampleRate: inputSampleRate } : {}) }, pool);
  const parts: Uint8Array[] = [];
  for (let at = 0; at < samples.length; at += inputSampleRate / 2) parts.push(await encoder.write(samples.subarray(at, at + inputSampleRate / 2)));
  parts.push(await encoder.end());
  return Buffer.concat(parts);
}

describe('media pool', () => {
  it('encodes MP3 and Ogg Opus in its workers, into files that decode to the input length', async () => {
    const seconds = speech.samples.length / speech.sampleRate;
    const [mp3, opus] = await Promise.all([encodeAll('mp3', speech.samples, speech.sampleRate), encodeAll('opus', speech.samples, speech.sampleRate)]);
    expect(pool.stats.running).toBeGreaterThan(0);
    const fromMp3 = await decodeMp3(mp3);
    expect(fromMp3.samples.length / fromMp3.sampleRate).toBeGreaterThan(seconds - 0.05);
    expect(fromMp3.samples.length / fromMp3.sampleRate).toBeLessThan(seconds + 0.2);
    const fromOpus = await decodeOggOpus(opus);
    expect(fromOpus.sampleRate).toBe(48000);
    expect(Math.abs(fromOpus.samples.length / 48000 - seconds)).toBeLessThan(0.03);
    expect(pool.stats.pinned).toBe(0);
  });

  it('keeps each stream on one worker: two interleaved streams give the same bytes as one alone', async () => {
    const alone = await encodeAll('mp3', speech.samples, speech.sampleRate);
    const both = await Promise.all([encodeAll('mp3', speech.samples, speech.sampleRate), encodeAll('mp3', speech.samples, speech.sampleRate)]);
    expect(Buffer.compare(both[0]!, alone)).toBe(0);
    expect(Buffer.compare(both[1]!, alone)).toBe(0);
  });

  it('encodes WAV on the calling thread and frees a stream closed without ending', async () => {
    const wav = await encodeAll('wav', speech.samples, speech.sampleRate);
    expect(parseWav(wav.slice()).samples.length).toBe(speech.samples.length);
    const cut = await openEncoder({ format: 'opus', inputSampleRate: 16000 }, pool);
    await cut.write(speech.samples.subarray(0, 8000));
    cut.close();
    await expect(cut.write(speech.samples.subarray(0, 10))).rejects.toThrow(/already closed/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pool.stats.pinned).toBe(0);
  });

  it('warms up: every worker started with its encoders loaded, no pin left', async () => {
    const cold = new MediaPool({ size: 2 });
    try {
      expect(cold.stats.running).toBe(0);
      await cold.warmUp();
      expect(cold.stats.running).toBe(2);
      expect(cold.stats.pinned).toBe(0);
    } finally {
      await cold.stop();
    }
  });

  it('decodes and resamples uploads in a worker, moving the samples back', async () => {
    const bytes = readFileSync(new URL('../fixtures/human/dev_01.wav', import.meta.url));
    const at8k = await pool.decode(bytes, { sampleRate: 8000 });
    expect(at8k.sampleRate).toBe(8000);
    expect(at8k.durationMs).toBeCloseTo((speech.samples.length * 1000) / speech.sampleRate, 3);
    expect(Math.abs(at8k.samples.length - (speech.samples.length * 8000) / speech.sampleRate)).toBeLessThan(2);
  });

  it('prepares an uploaded voice sample in a worker: measures, the WAV to store (enhanced or not), 16 kHz samples', async () => {
    const at44k = await resample(speech.samples, speech.sampleRate, 44_100);
    const upload = encodeWav(at44k, 44_100);
    const enhanced = await pool.prepareSample(upload.slice(), { enhance: true });
    expect(enhanced.measures).toEqual(measureSample(at44k, 44_100));
    expect(enhanced.measures.sample_rate).toBe(44_100);
    const stored = parseWav(enhanced.wav);
    expect(stored.sampleRate).toBe(44_100);
    expect(stored.samples).toEqual(enhanceSample(at44k, 44_100));
    expect(stored.samples).not.toEqual(at44k);
    expect(Math.abs(enhanced.pcm16k.length - speech.samples.length)).toBeLessThan(2);
    const plain = await pool.prepareSample(upload.slice(), { enhance: false });
    expect(parseWav(plain.wav).samples).toEqual(at44k);
    await expect(pool.prepareSample(new Uint8Array(100), { enhance: true })).rejects.toBeInstanceOf(AudioFormatError);
  });

  it('rebuilds worker failures as the caller knows them: unreadable audio, too little speech', async () => {
    await expect(pool.decode(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]))).rejects.toBeInstanceOf(AudioFormatError);
    const failure = await pool.voiceOfFiles([readFileSync(new URL('../fixtures/human/dev_01.wav', import.meta.url)), new Uint8Array(16)]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AudioFormatError);
    expect(failure).toMatchObject({ index: 1, status: 400 });
    await expect(pool.voiceOfPcm(new Int16Array(16000))).rejects.toBeInstanceOf(ReferenceTooShortError);
  });

  it('picks a voice from reference speech in a worker', async () => {
    const voice = await pool.voiceOfFiles([readFileSync(new URL('../fixtures/human/dev_13.wav', import.meta.url))]);
    expect(voice).toMatchObject({ voice: expect.any(String) });
  });
});
