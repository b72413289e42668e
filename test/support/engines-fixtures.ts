/** Shared by the engines tests: fixture speech, word error rate, simple signal measures. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Expectation } from '../../src/speech/index.js';
import { decodeMuLaw, encodeMuLaw } from '../../src/audio/index.js';
import { resample } from '../../src/audio/resampler.js';
import type { Hypothesis, SpeechRecognitionEngine } from '../../src/engines/types.js';

export const speechDir = join(import.meta.dirname, '../fixtures/speech');

export interface SpeechFixture {
  file: string;
  voice: string;
  text: string;
  pcm: Int16Array;
}

/** Reads a 16-bit mono PCM WAV (the fixtures' format). */
export function readPcmWav(path: string): { samples: Int16Array; sampleRate: number } {
  const bytes = readFileSync(path);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 12;
  let sampleRate = 0;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString('latin1', at, at + 4);
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ') sampleRate = view.getUint32(at + 12, true);
    if (id === 'data') {
      const samples = new Int16Array(size >> 1);
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(at + 8 + i * 2, true);
      return { samples, sampleRate };
    }
    at += 8 + size + (size & 1);
  }
  throw new Error(`${path}: no data chunk`);
}

export function speechFixtures(): SpeechFixture[] {
  const manifest = JSON.parse(readFileSync(join(speechDir, 'manifest.json'), 'utf8')) as Array<Omit<SpeechFixture, 'pcm'>>;
  return manifest.map((entry) => ({ ...entry, pcm: readPcmWav(join(speechDir, entry.file)).samples }));
}

/** Word-level edit distance between a reference and a hypothesis (lower-cased, punctuation ignored). */
export function wordErrors(reference: string, hypothesis: string): { errors: number; words: number } {
  const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9' ]/g, ' ').split(/\s+/).filter(Boolean);
  const r = norm(reference);
  const h = norm(hypothesis);
  let previous = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const row = [i];
    for (let j = 1; j <= h.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return { errors: previous[h.length]!, words: r.length };
}

export function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/** Deterministic white noise at the given peak amplitude. */
export function noise(length: number, amplitude: number, seed = 1): Int16Array {
  let state = seed;
  const out = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    out[i] = Math.round(((state / 0x7fffffff) * 2 - 1) * amplitude);
  }
  return out;
}

/** 16 kHz speech through a telephone channel (8 kHz mu-law and back to 16 kHz), as the tests and benches hear phone audio. */
export async function throughTelephoneChannel(pcm: Int16Array): Promise<Int16Array> {
  return resample(decodeMuLaw(encodeMuLaw(await resample(pcm, 16000, 8000))), 8000, 16000);
}

/**
 * `pcm` with `tailMs` more after it, all under Gaussian line noise of `dbfs` RMS (the same seeded noise each
 * run): a real line is never digitally silent, and most human clips are padded with exact zeros.
 */
export function withLineNoise(pcm: Int16Array, dbfs: number, tailMs: number): Int16Array {
  const out = new Int16Array(pcm.length + (tailMs * 16000) / 1000);
  out.set(pcm);
  const rms = 32768 * 10 ** (dbfs / 20);
  let state = 12345;
  const uniform = () => {
    // xorshift32: (0, 1], never 0 for the logarithm.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) + 1) / 4294967296;
  };
  for (let i = 0; i < out.length; i++) {
    const gaussian = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    out[i] = Math.max(-32768, Math.min(32767, Math.round(out[i]! + gaussian * rms)));
  }
  return out;
}

/**
 * `pcm` (16 kHz) streamed in 20 ms pieces to a fresh recognizer of `engine`, as a call's first answer is heard;
 * `telephoneBand`: the recognizer is told the line is 8 kHz.
 */
export async function streamToRecognizer(
  engine: SpeechRecognitionEngine,
  pcm: Int16Array,
  expectations?: readonly Expectation[],
  telephoneBand = false,
): Promise<Hypothesis> {
  const recognizer = engine.createRecognizer({ telephoneBand });
  try {
    if (expectations) await recognizer.expect!(expectations);
    for (let at = 0; at < pcm.length; at += 320) await recognizer.write(pcm.subarray(at, at + 320));
    return await recognizer.finish();
  } finally {
    recognizer.close();
  }
}

const cardRanks = ['ace', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'jack', 'queen', 'king'];
/** One playing card or several ("four queen of clubs"): a run of the card words (test/fixtures/human-cmu). */
export const cardExpectations: Expectation[] = [
  { kind: 'phrases', phrases: [], keywords: [...cardRanks, 'of', 'clubs', 'diamonds', 'hearts', 'spades'] },
];
