/**
 * Opus encoding cost of the two libopus packages on the same 30 s of fixture speech at 48 kHz mono, 20 ms
 * frames, complexity 8, voice signal, automatic bitrate: `opusscript` (Emscripten build) and `@evan/opus`
 * (native prebuilt for the platform, WebAssembly elsewhere). Prints one JSON object with the median of 7 runs
 * in ms and real-time factors. Run: npx tsx bench/opus-encoders.ts
 */
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import OpusScript from 'opusscript';
import { Encoder } from '@evan/opus';
import { parseWav, resample } from '../src/audio/index.js';

const fixtures = fileURLToPath(new URL('../test/fixtures/speech/', import.meta.url));
const SECONDS = 30;
const RUNS = 7;
const FRAME = 960;

async function speech48k(): Promise<Int16Array> {
  const clips = readdirSync(fixtures).filter((f) => f.endsWith('.wav')).sort().map((f) => parseWav(readFileSync(fixtures + f)));
  const out = new Int16Array(16000 * SECONDS);
  for (let offset = 0, i = 0; offset < out.length; i++) {
    const clip = clips[i % clips.length]!;
    const samples = clip.sampleRate === 16000 ? clip.samples : await resample(clip.samples, clip.sampleRate, 16000);
    out.set(samples.subarray(0, out.length - offset), offset);
    offset += samples.length;
  }
  return resample(out, 16000, 48000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(encode: (frame: Int16Array) => number, pcm: Int16Array): { ms: number; bytes: number } {
  const start = performance.now();
  let bytes = 0;
  for (let at = 0; at + FRAME <= pcm.length; at += FRAME) bytes += encode(pcm.subarray(at, at + FRAME));
  return { ms: performance.now() - start, bytes };
}

const pcm = await speech48k();
const opusscript = () => {
  const encoder = new OpusScript(48000, 1, OpusScript.Application.AUDIO);
  encoder.setBitrate(-1000);
  encoder.encoderCTL(4010, 8);
  encoder.encoderCTL(4024, 3001);
  const result = time((frame) => encoder.encode(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength), FRAME).length, pcm);
  encoder.delete();
  return result;
};
const evan = () => {
  const encoder = new Encoder({ channels: 1, sample_rate: 48000, application: 'audio' });
  encoder.bitrate = 'auto';
  encoder.complexity = 8;
  encoder.signal = 'voice';
  return time((frame) => encoder.encode(frame).length, pcm);
};
const runs = { opusscript: [] as number[], evan: [] as number[] };
const bytes = { opusscript: 0, evan: 0 };
for (let run = 0; run < RUNS; run++) {
  const a = opusscript();
  const b = evan();
  runs.opusscript.push(a.ms);
  runs.evan.push(b.ms);
  bytes.opusscript = a.bytes;
  bytes.evan = b.bytes;
}
const ms = { opusscript: median(runs.opusscript), evan: median(runs.evan) };
console.log(
  JSON.stringify({
    bench: 'opus-encoders',
    date: new Date().toISOString(),
    loadavg: os.loadavg().map((v) => Number(v.toFixed(2))),
    audioSeconds: SECONDS,
    medianMs: { opusscript: Number(ms.opusscript.toFixed(1)), '@evan/opus': Number(ms.evan.toFixed(1)) },
    realTimeFactor: { opusscript: Number((ms.opusscript / 1000 / SECONDS).toFixed(4)), '@evan/opus': Number((ms.evan / 1000 / SECONDS).toFixed(4)) },
    speedup: Number((ms.opusscript / ms.evan).toFixed(2)),
    bytes: { opusscript: bytes.opusscript, '@evan/opus': bytes.evan },
  }),
);
