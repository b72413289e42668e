/**
 * Real-time factors (processing time / audio duration) of the audio core on ~30 s of fixture speech.
 * Prints one JSON object. Run: npx tsx bench/audio.ts
 */
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  createEncoder,
  decodeAudio,
  decodeMuLaw,
  encodeAudio,
  encodeMuLaw,
  parseWav,
  resample,
  Resampler,
  type EncoderOptions,
} from '../src/audio/index.js';

const fixtures = fileURLToPath(new URL('../test/fixtures/', import.meta.url));
const SECONDS = 30;
const RUNS = 3;

function speech16k(): Int16Array {
  const clips = readdirSync(fixtures + 'speech')
    .filter((f) => f.endsWith('.wav'))
    .sort()
    .map((f) => parseWav(readFileSync(fixtures + 'speech/' + f)).samples);
  const out = new Int16Array(16000 * SECONDS);
  for (let offset = 0, i = 0; offset < out.length; i++) {
    const clip = clips[i % clips.length]!.subarray(0, out.length - offset);
    out.set(clip, offset);
    offset += clip.length;
  }
  return out;
}

interface Rtf {
  /** Wall-clock time / audio time: what a caller waits, inflated when other processes share the cores. */
  wall: number;
  /** CPU time of this process / audio time: the cost on one unshared core. */
  cpu: number;
}

/** Median of RUNS runs after one warm-up, as real-time factors of `audioSeconds`. */
async function rtf(audioSeconds: number, work: () => unknown): Promise<Rtf> {
  await work();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    await work();
    wall.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[RUNS >> 1]!;
  const factor = (ms: number) => Number((ms / 1000 / audioSeconds).toFixed(5));
  return { wall: factor(median(wall)), cpu: factor(median(cpu)) };
}

/** Encodes in 100 ms chunks, the way a TTS stream feeds the encoder. */
async function streamEncode(samples: Int16Array, options: EncoderOptions & { sampleRate: number }): Promise<number> {
  const encoder = await createEncoder(options);
  const chunk = options.sampleRate / 10;
  let bytes = 0;
  for (let offset = 0; offset < samples.length; offset += chunk) bytes += encoder.write(samples.subarray(offset, offset + chunk)).length;
  return bytes + encoder.end().length;
}

async function main(): Promise<void> {
  const voice16k = speech16k();
  const at: Record<number, Int16Array> = { 16000: voice16k };
  for (const rate of [8000, 24000, 32000, 44100, 48000]) at[rate] = await resample(voice16k, 16000, rate);

  const resampling = {
    '16000->48000': await rtf(SECONDS, () => resample(voice16k, 16000, 48000)),
    '16000->48000 streamed 20 ms': await rtf(SECONDS, async () => {
      const resampler = await Resampler.create(16000, 48000);
      for (let offset = 0; offset < voice16k.length; offset += 320) resampler.process(voice16k.subarray(offset, offset + 320));
      resampler.flush();
      resampler.destroy();
    }),
    '48000->16000': await rtf(SECONDS, () => resample(at[48000]!, 48000, 16000)),
    '8000->16000': await rtf(SECONDS, () => resample(at[8000]!, 8000, 16000)),
    '16000->44100': await rtf(SECONDS, () => resample(voice16k, 16000, 44100)),
  };

  const encode = {
    'wav 24000': await rtf(SECONDS, () => streamEncode(at[24000]!, { format: 'wav', sampleRate: 24000 })),
    'pcm 24000': await rtf(SECONDS, () => streamEncode(at[24000]!, { format: 'pcm', sampleRate: 24000 })),
    'mp3 44100 128k': await rtf(SECONDS, () => streamEncode(at[44100]!, { format: 'mp3', sampleRate: 44100, mp3Bitrate: 128 })),
    'mp3 44100 64k': await rtf(SECONDS, () => streamEncode(at[44100]!, { format: 'mp3', sampleRate: 44100, mp3Bitrate: 64 })),
    'mp3 44100 192k': await rtf(SECONDS, () => streamEncode(at[44100]!, { format: 'mp3', sampleRate: 44100, mp3Bitrate: 192 })),
    'mp3 32000 128k': await rtf(SECONDS, () => streamEncode(at[32000]!, { format: 'mp3', sampleRate: 32000, mp3Bitrate: 128 })),
    'opus 48000 auto': await rtf(SECONDS, () => streamEncode(at[48000]!, { format: 'opus', sampleRate: 48000, opusBitrate: -1000 })),
    'opus 48000 32k': await rtf(SECONDS, () => streamEncode(at[48000]!, { format: 'opus', sampleRate: 48000, opusBitrate: 32000 })),
    'opus 48000 64k': await rtf(SECONDS, () => streamEncode(at[48000]!, { format: 'opus', sampleRate: 48000, opusBitrate: 64000 })),
    'mu-law 8000': await rtf(SECONDS, () => encodeMuLaw(at[8000]!)),
  };

  const files = {
    wav: await encodeAudio(voice16k, 16000, { format: 'wav', sampleRate: 16000 }),
    mp3: await encodeAudio(at[44100]!, 44100, { format: 'mp3', sampleRate: 44100, mp3Bitrate: 128 }),
    opus: await encodeAudio(at[48000]!, 48000, { format: 'opus', opusBitrate: 32000 }),
  };
  const flac = readFileSync(fixtures + 'audio/slt_01.flac');
  const flacSeconds = (await decodeAudio(flac)).samples.length / 16000;
  const muLaw = encodeMuLaw(at[8000]!);
  const decode = {
    'wav 16000': await rtf(SECONDS, () => decodeAudio(files.wav)),
    'mp3 44100 128k': await rtf(SECONDS, () => decodeAudio(files.mp3)),
    'opus 48000 32k': await rtf(SECONDS, () => decodeAudio(files.opus)),
    'flac 16000': await rtf(flacSeconds, () => decodeAudio(flac)),
    'mu-law 8000': await rtf(SECONDS, () => decodeMuLaw(muLaw)),
  };

  const opusWorst = (key: keyof Rtf) => Math.max(encode['opus 48000 auto'][key], encode['opus 48000 32k'][key], encode['opus 48000 64k'][key]);
  const targets = {
    'mp3 encode 128k <= 0.05': { wall: encode['mp3 44100 128k'].wall <= 0.05, cpu: encode['mp3 44100 128k'].cpu <= 0.05 },
    'opus encode <= 0.04': { wall: opusWorst('wall') <= 0.04, cpu: opusWorst('cpu') <= 0.04 },
    'resampling 16->48 kHz <= 0.01': { wall: resampling['16000->48000'].wall <= 0.01, cpu: resampling['16000->48000'].cpu <= 0.01 },
  };
  const result = {
    bench: 'audio',
    unit: 'real-time factor (processing seconds per audio second; lower is faster)',
    audioSeconds: SECONDS,
    loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
    cores: os.cpus().length,
    runs: `median of ${RUNS} after 1 warm-up`,
    resampling,
    encode,
    decode,
    targets,
  };
  console.log(JSON.stringify(result, null, 2));
}

await main();
