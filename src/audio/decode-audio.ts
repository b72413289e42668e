import { AudioTooLongError, containerDurationMs } from './audio-duration.js';
import { decodeFlac, decodeMp3, decodeOggOpus, type DecodedAudio, type DecodeLimits } from './decoders.js';
import { decodeWebmOpus } from './webm-opus.js';
import { AudioFormatError } from './errors.js';
import { resample } from './resampler.js';
import { parseWav } from './wav-read.js';

/** Containers `decodeAudio` recognises by their first bytes. */
export type SniffedContainer = 'wav' | 'mp3' | 'ogg-opus' | 'flac' | 'webm-opus';

/** Names the container from the first bytes, or throws AudioFormatError saying what was found. */
export function sniffContainer(bytes: Uint8Array): SniffedContainer {
  if (bytes.length === 0) throw new AudioFormatError('audio input is empty');
  if (startsWith(bytes, 'RIFF')) {
    if (bytes.length >= 12 && text(bytes, 8, 4) === 'WAVE') return 'wav';
    throw new AudioFormatError('RIFF file is not WAVE audio (or is truncated before its WAVE tag)');
  }
  if (startsWith(bytes, 'OggS')) {
    if (bytes.length < 27) throw new AudioFormatError('Ogg input is truncated inside its first page header');
    const payload = 27 + bytes[26]!;
    if (text(bytes, payload, 8) === 'OpusHead') return 'ogg-opus';
    const codec = text(bytes, payload, 8).replace(/[^\x20-\x7e]/g, '?');
    throw new AudioFormatError(`unsupported Ogg codec (first packet starts ${JSON.stringify(codec)}); only Ogg Opus is decoded`);
  }
  if (startsWith(bytes, 'fLaC')) return 'flac';
  if (startsWith(bytes, '\x1a\x45\xdf\xa3')) return 'webm-opus';
  let offset = 0;
  if (startsWith(bytes, 'ID3')) {
    if (bytes.length < 10) throw new AudioFormatError('ID3 tag is truncated');
    const size = ((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f);
    offset = 10 + size + (bytes[5]! & 0x10 ? 10 : 0);
    if (offset >= bytes.length) throw new AudioFormatError('input holds an ID3 tag but no audio after it');
    if (text(bytes, offset, 4) === 'fLaC') return 'flac';
  }
  if (isMpegFrameHeader(bytes, offset)) return 'mp3';
  const head = Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
  throw new AudioFormatError(`unrecognised audio format (first bytes ${head}); supported: WAV, MP3, Ogg Opus, FLAC, WebM Opus`);
}

/**
 * Decodes WAV, MP3, Ogg Opus, FLAC or WebM Opus bytes to mono 16-bit PCM at the file's own rate. With `maxDurationMs`,
 * audio longer than that is refused with AudioTooLongError before its samples are held: from the container's
 * own account of its length where it has one, and by the decoder stopping at the limit where it has not.
 */
export async function decodeAudio(bytes: Uint8Array, limits?: DecodeLimits): Promise<DecodedAudio> {
  const container = sniffContainer(bytes);
  if (limits) {
    const durationMs = containerDurationMs(bytes, container);
    if (durationMs !== undefined && durationMs > limits.maxDurationMs) throw new AudioTooLongError(durationMs, limits.maxDurationMs);
  }
  switch (container) {
    case 'wav': {
      const { samples, sampleRate } = parseWav(bytes);
      return { samples, sampleRate };
    }
    case 'mp3':
      return decodeMp3(bytes, limits);
    case 'ogg-opus':
      return decodeOggOpus(bytes, limits);
    case 'flac':
      return decodeFlac(bytes, limits);
    case 'webm-opus':
      return decodeWebmOpus(bytes, limits);
  }
}

/** Decodes like `decodeAudio`, then resamples to `sampleRate` (e.g. 16000 for speech recognition). */
export async function decodeAudioAt(bytes: Uint8Array, sampleRate: number, limits?: DecodeLimits): Promise<DecodedAudio> {
  const decoded = await decodeAudio(bytes, limits);
  return { samples: await resample(decoded.samples, decoded.sampleRate, sampleRate), sampleRate };
}

function isMpegFrameHeader(bytes: Uint8Array, offset: number): boolean {
  if (offset + 4 > bytes.length) return false;
  const [b0, b1, b2] = [bytes[offset]!, bytes[offset + 1]!, bytes[offset + 2]!];
  const layer = (b1 >> 1) & 0x03;
  const version = (b1 >> 3) & 0x03;
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 0x03;
  return b0 === 0xff && (b1 & 0xe0) === 0xe0 && layer !== 0 && version !== 1 && bitrateIndex !== 0x0f && rateIndex !== 0x03;
}

function startsWith(bytes: Uint8Array, magic: string): boolean {
  return text(bytes, 0, magic.length) === magic;
}

function text(bytes: Uint8Array, start: number, length: number): string {
  let out = '';
  for (let i = start; i < Math.min(start + length, bytes.length); i++) out += String.fromCharCode(bytes[i]!);
  return out;
}
