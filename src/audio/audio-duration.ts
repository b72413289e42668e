import { AudioFormatError } from './errors.js';
import { completeOggPrefix } from './ogg-page.js';
import { wavDurationMs } from './wav-read.js';

/**
 * How long an uploaded file plays, read from its container without decoding it: a few megabytes of FLAC or
 * Opus can hold hours of audio, so a limit must be checked before the samples exist. WAV from its data chunk,
 * MP3 by walking its frame headers, Ogg Opus by the packets' table-of-contents bytes (not the granule
 * positions, which a file can set to anything), FLAC from STREAMINFO (undefined when it says "unknown"; the
 * decoder then counts as it goes).
 */
export function containerDurationMs(bytes: Uint8Array, container: 'wav' | 'mp3' | 'ogg-opus' | 'flac' | 'webm-opus'): number | undefined {
  switch (container) {
    case 'webm-opus':
      return undefined;
    case 'wav':
      return wavDurationMs(bytes);
    case 'mp3':
      return mp3DurationMs(bytes);
    case 'ogg-opus':
      return oggOpusDurationMs(bytes);
    case 'flac':
      return flacDeclaredDurationMs(bytes);
  }
}

/** The audio is longer than the caller accepts; found before (or while) decoding, never after holding it all. */
export class AudioTooLongError extends Error {
  readonly status = 400;
  override readonly name = 'AudioTooLongError';
  constructor(
    /** How long the audio is, or how much was decoded when the decoder stopped (then it is at least this long). */
    readonly durationMs: number,
    readonly limitMs: number,
    /** False when the decoder stopped at the limit: the audio is at least `durationMs` long. */
    readonly exact = true,
  ) {
    const length = exact ? `is ${describe(durationMs)} long` : `lasts more than ${describe(limitMs)}`;
    super(`audio ${length}; the limit is ${describe(limitMs)}: split the recording into shorter files`);
  }
}

function describe(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} minutes` : `${Math.round(ms / 1000)} s`;
}

const MPEG_BITRATES_KBPS: Record<string, readonly number[]> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MPEG_RATES: Record<number, readonly number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** An MPEG audio frame at `offset`: its length in bytes and samples, or undefined when no valid header is there. */
function mpegFrame(bytes: Uint8Array, offset: number): { bytes: number; samples: number; sampleRate: number } | undefined {
  if (offset + 4 > bytes.length || bytes[offset] !== 0xff || (bytes[offset + 1]! & 0xe0) !== 0xe0) return undefined;
  const b1 = bytes[offset + 1]!;
  const b2 = bytes[offset + 2]!;
  const versionBits = (b1 >> 3) & 0x03;
  const layer = 4 - ((b1 >> 1) & 0x03);
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 0x03;
  if (versionBits === 1 || layer === 4 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const mpeg1 = versionBits === 3;
  const kbps = MPEG_BITRATES_KBPS[`${mpeg1 ? 1 : 2}-${layer}`]![bitrateIndex]!;
  const sampleRate = MPEG_RATES[versionBits]![rateIndex]!;
  const padding = (b2 >> 1) & 0x01;
  const samples = layer === 1 ? 384 : layer === 2 || mpeg1 ? 1152 : 576;
  const length = layer === 1 ? (Math.floor((12 * kbps * 1000) / sampleRate) + padding) * 4 : Math.floor(((samples / 8) * kbps * 1000) / sampleRate) + padding;
  return { bytes: length, samples, sampleRate };
}

/** Sum of the frames' durations, skipping an ID3v2 tag and resynchronising over bytes that are no frame. */
export function mp3DurationMs(bytes: Uint8Array): number {
  let offset = 0;
  if (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33 && bytes.length >= 10) {
    offset = 10 + (((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f));
  }
  let ms = 0;
  while (offset + 4 <= bytes.length) {
    const frame = mpegFrame(bytes, offset);
    if (!frame) {
      offset++;
      continue;
    }
    ms += (frame.samples * 1000) / frame.sampleRate;
    offset += frame.bytes;
  }
  return ms;
}

/** Samples (at 48 kHz) of one Opus packet from its TOC byte and frame count (RFC 6716, 3.1). */
function opusPacketSamples(toc: number, second: number | undefined): number {
  const config = toc >> 3;
  const frameSamples =
    config < 12 ? [480, 960, 1920, 2880][config & 3]! : config < 16 ? [480, 960][config & 1]! : [120, 240, 480, 960][config & 3]!;
  const code = toc & 3;
  const frames = code === 0 ? 1 : code === 3 ? (second ?? 0) & 0x3f : 2;
  return frames * frameSamples;
}

/** Sum of the audio packets' durations over the stream's whole pages. */
export function oggOpusDurationMs(bytes: Uint8Array): number {
  let complete: number;
  try {
    complete = completeOggPrefix(bytes).bytes;
  } catch (error) {
    throw new AudioFormatError(`cannot decode Ogg Opus: ${(error as Error).message}`);
  }
  let samples = 0;
  let head: number[] = [];
  let packetBytes = 0;
  const finish = () => {
    const magic = String.fromCharCode(...head.slice(0, 8));
    if (packetBytes > 0 && magic !== 'OpusHead' && magic !== 'OpusTags') samples += opusPacketSamples(head[0]!, head[1]);
    head = [];
    packetBytes = 0;
  };
  for (let offset = 0; offset + 27 <= complete; ) {
    const segments = bytes[offset + 26]!;
    let body = offset + 27 + segments;
    for (let i = 0; i < segments; i++) {
      const lacing = bytes[offset + 27 + i]!;
      for (let j = 0; j < lacing && head.length < 8; j++) head.push(bytes[body + j]!);
      packetBytes += lacing;
      body += lacing;
      if (lacing < 255) finish();
    }
    offset = body;
  }
  return (samples * 1000) / 48_000;
}

/** STREAMINFO's total samples over its rate, or undefined when the encoder left the total as 0 (unknown). */
export function flacDeclaredDurationMs(bytes: Uint8Array): number | undefined {
  const start = flacStart(bytes) + 8; // "fLaC", then the STREAMINFO block's 4-byte header
  if (start + 18 > bytes.length) throw new AudioFormatError('FLAC input is truncated inside its STREAMINFO block');
  const sampleRate = (bytes[start + 10]! << 12) | (bytes[start + 11]! << 4) | (bytes[start + 12]! >> 4);
  const total = (bytes[start + 13]! & 0x0f) * 2 ** 32 + new DataView(bytes.buffer, bytes.byteOffset + start + 14, 4).getUint32(0);
  if (total === 0 || sampleRate === 0) return undefined;
  return (total * 1000) / sampleRate;
}

function flacStart(bytes: Uint8Array): number {
  if (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33 && bytes.length >= 10) {
    return 10 + (((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f)) + (bytes[5]! & 0x10 ? 10 : 0);
  }
  return 0;
}
