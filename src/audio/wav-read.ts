import { AudioFormatError } from './errors.js';
import { decodeALaw, decodeMuLaw } from './g711.js';
import { bytesToInt16, clipToInt16 } from './pcm.js';

/** Sample encodings found in WAV files that this reader decodes. */
export type WavEncoding = 'pcm' | 'float' | 'alaw' | 'mulaw';

export interface ParsedWav {
  /** Mono 16-bit PCM (several channels are averaged). */
  samples: Int16Array;
  sampleRate: number;
  /** Channel count of the file before the downmix. */
  channels: number;
  bitsPerSample: number;
  encoding: WavEncoding;
  /** True when the header carried placeholder sizes (a streamed WAV) and the byte count was trusted instead. */
  streamed: boolean;
}

const FORMAT_PCM = 0x0001;
const FORMAT_FLOAT = 0x0003;
const FORMAT_ALAW = 0x0006;
const FORMAT_MULAW = 0x0007;
const FORMAT_EXTENSIBLE = 0xfffe;

/** Sizes at or above this are placeholders written by streaming producers that did not know the length. */
const PLACEHOLDER_SIZE = 0xffffff00;

export interface WavFormat {
  encoding: WavEncoding;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  blockAlign: number;
}

/** Where a WAV file's samples are: its format and the data chunk's bytes (a placeholder size reads to the end). */
export interface WavLayout {
  format: WavFormat;
  /** Offset and length of the sample data, whole frames only. */
  start: number;
  length: number;
  streamed: boolean;
}

/** Reads a WAV file's chunks without decoding its samples; throws AudioFormatError saying what is wrong. */
export function wavLayout(bytes: Uint8Array): WavLayout {
  if (bytes.length === 0) throw new AudioFormatError('WAV input is empty');
  if (bytes.length < 12) throw new AudioFormatError(`WAV input is truncated: ${bytes.length} bytes, a RIFF header needs 12`);
  if (ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WAVE') {
    throw new AudioFormatError(`not a WAV file: expected "RIFF....WAVE", found ${JSON.stringify(ascii(bytes, 0, 4))}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: WavFormat | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = ascii(bytes, offset, 4);
    const size = view.getUint32(offset + 4, true);
    const bodyStart = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || bodyStart + 16 > bytes.length) {
        throw new AudioFormatError(`WAV input is truncated: the fmt chunk needs 16 bytes, ${Math.max(0, bytes.length - bodyStart)} present`);
      }
      format = readFormat(view, bodyStart, size);
    } else if (id === 'data') {
      if (!format) throw new AudioFormatError('WAV data chunk comes before its fmt chunk');
      const available = bytes.length - bodyStart;
      const streamed = size >= PLACEHOLDER_SIZE;
      if (!streamed && size > available) {
        throw new AudioFormatError(`WAV input is truncated: the data chunk declares ${size} bytes, ${available} present`);
      }
      const length = streamed ? available - (available % format.blockAlign) : size - (size % format.blockAlign);
      return { format, start: bodyStart, length, streamed };
    }
    if (size >= PLACEHOLDER_SIZE) break;
    offset = bodyStart + size + (size & 1);
  }
  throw new AudioFormatError(
    format ? 'WAV input has no data chunk (truncated?)' : 'WAV input has no fmt chunk (truncated?)',
  );
}

/** How long a WAV file plays, from its chunks (without decoding it). */
export function wavDurationMs(bytes: Uint8Array): number {
  const { format, length } = wavLayout(bytes);
  return (length / format.blockAlign / format.sampleRate) * 1000;
}

/** Reads a RIFF/WAVE file into mono 16-bit PCM. Throws AudioFormatError saying what is wrong. */
export function parseWav(bytes: Uint8Array): ParsedWav {
  const { format, start, length, streamed } = wavLayout(bytes);
  return {
    samples: decodeSamples(bytes.subarray(start, start + length), format),
    sampleRate: format.sampleRate,
    channels: format.channels,
    bitsPerSample: format.bitsPerSample,
    encoding: format.encoding,
    streamed,
  };
}

function readFormat(view: DataView, start: number, size: number): WavFormat {
  let code = view.getUint16(start, true);
  const channels = view.getUint16(start + 2, true);
  const sampleRate = view.getUint32(start + 4, true);
  const blockAlign = view.getUint16(start + 12, true);
  const bitsPerSample = view.getUint16(start + 14, true);
  if (code === FORMAT_EXTENSIBLE) {
    if (size < 40 || start + 26 > view.byteLength) {
      throw new AudioFormatError('WAVE_FORMAT_EXTENSIBLE fmt chunk is shorter than 40 bytes');
    }
    code = view.getUint16(start + 24, true);
  }
  if (channels < 1) throw new AudioFormatError('WAV fmt chunk declares 0 channels');
  if (sampleRate < 1) throw new AudioFormatError('WAV fmt chunk declares a sample rate of 0');
  const encoding = encodingOf(code, bitsPerSample);
  const expectedAlign = channels * Math.ceil(bitsPerSample / 8);
  if (blockAlign !== expectedAlign) {
    throw new AudioFormatError(
      `WAV fmt chunk is inconsistent: block align ${blockAlign}, expected ${expectedAlign} for ${channels} channel(s) of ${bitsPerSample} bits`,
    );
  }
  return { encoding, channels, sampleRate, bitsPerSample, blockAlign };
}

function encodingOf(code: number, bits: number): WavEncoding {
  switch (code) {
    case FORMAT_PCM:
      if ([8, 16, 24, 32].includes(bits)) return 'pcm';
      throw new AudioFormatError(`unsupported WAV PCM bit depth ${bits}; supported: 8, 16, 24, 32`);
    case FORMAT_FLOAT:
      if (bits === 32 || bits === 64) return 'float';
      throw new AudioFormatError(`unsupported WAV float bit depth ${bits}; supported: 32, 64`);
    case FORMAT_ALAW:
    case FORMAT_MULAW:
      if (bits !== 8) throw new AudioFormatError(`G.711 WAV must have 8 bits per sample, found ${bits}`);
      return code === FORMAT_ALAW ? 'alaw' : 'mulaw';
    default:
      throw new AudioFormatError(
        `unsupported WAV codec 0x${code.toString(16).padStart(4, '0')}; supported: PCM (1), float (3), A-law (6), mu-law (7)`,
      );
  }
}

function decodeSamples(body: Uint8Array, format: WavFormat): Int16Array {
  const { channels, encoding, bitsPerSample } = format;
  const frames = Math.floor(body.length / format.blockAlign);
  if (encoding === 'mulaw' || encoding === 'alaw') {
    const decoded = encoding === 'mulaw' ? decodeMuLaw(body.subarray(0, frames * channels)) : decodeALaw(body.subarray(0, frames * channels));
    return channels === 1 ? decoded : downmixInt16(decoded, channels);
  }
  if (encoding === 'pcm' && bitsPerSample === 16 && channels === 1) return bytesToInt16(body);
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const read = sampleReader(view, encoding, bitsPerSample);
  const bytesPerSample = bitsPerSample / 8;
  const out = new Int16Array(frames);
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0;
    const base = frame * format.blockAlign;
    for (let channel = 0; channel < channels; channel++) sum += read(base + channel * bytesPerSample);
    out[frame] = clipToInt16(Math.round((sum / channels) * 32768));
  }
  return out;
}

/** Returns a reader of one sample at a byte offset, scaled to [-1, 1). */
function sampleReader(view: DataView, encoding: WavEncoding, bits: number): (offset: number) => number {
  if (encoding === 'float') {
    return bits === 32 ? (o) => view.getFloat32(o, true) : (o) => view.getFloat64(o, true);
  }
  switch (bits) {
    case 8:
      return (o) => (view.getUint8(o) - 128) / 128;
    case 16:
      return (o) => view.getInt16(o, true) / 32768;
    case 24:
      return (o) => ((view.getInt8(o + 2) << 16) | (view.getUint8(o + 1) << 8) | view.getUint8(o)) / 8388608;
    default:
      return (o) => view.getInt32(o, true) / 2147483648;
  }
}

function downmixInt16(interleaved: Int16Array, channels: number): Int16Array {
  const frames = Math.floor(interleaved.length / channels);
  const out = new Int16Array(frames);
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0;
    for (let channel = 0; channel < channels; channel++) sum += interleaved[frame * channels + channel]!;
    out[frame] = Math.round(sum / channels);
  }
  return out;
}

function ascii(bytes: Uint8Array, start: number, length: number): string {
  let text = '';
  for (let i = start; i < Math.min(start + length, bytes.length); i++) text += String.fromCharCode(bytes[i]!);
  return text;
}
