import { decodeALaw, decodeMuLaw, Resampler } from '../../audio/index.js';
import type { ListenEncoding } from './query.js';

/** The rate the recognizer and the voice activity detector take. */
export const recognizerRate = 16000;

/** Audio the socket cannot decode (Deepgram's DATA-0000). */
export class UndecodableAudioError extends Error {}

interface Coding {
  encoding: Exclude<ListenEncoding, 'container'>;
  sampleRate: number;
}

const wavFormats: Record<number, Coding['encoding']> = { 1: 'linear16', 6: 'alaw', 7: 'mulaw' };
/** A WAV header longer than this without its `data` chunk is refused. */
const maxHeaderBytes = 64 * 1024;

/** Reads a mono WAV header: the coding and where the samples start, or undefined while more bytes are needed. */
function readWavHeader(bytes: Buffer): { coding: Coding; dataOffset: number } | undefined {
  if (bytes.length >= 4 && bytes.toString('latin1', 0, 4) !== 'RIFF') {
    throw new UndecodableAudioError('without encoding the stream must be a WAV file (RIFF); or give encoding=linear16|mulaw|alaw and sample_rate');
  }
  if (bytes.length < 12) return undefined;
  if (bytes.toString('latin1', 8, 12) !== 'WAVE') throw new UndecodableAudioError('the RIFF stream is not WAVE audio');
  let offset = 12;
  let coding: Coding | undefined;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('latin1', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === 'data') {
      if (!coding) throw new UndecodableAudioError('the WAV data chunk comes before its fmt chunk');
      return { coding, dataOffset: offset + 8 };
    }
    if (offset + 8 + size > bytes.length) return undefined;
    if (id === 'fmt ') {
      const format = bytes.readUInt16LE(offset + 8);
      const channels = bytes.readUInt16LE(offset + 10);
      const sampleRate = bytes.readUInt32LE(offset + 12);
      const bits = bytes.readUInt16LE(offset + 22);
      const encoding = wavFormats[format];
      if (!encoding || (encoding === 'linear16' && bits !== 16)) throw new UndecodableAudioError('the WAV file must hold 16-bit PCM, mu-law or A-law');
      if (channels !== 1) throw new UndecodableAudioError(`the WAV file has ${channels} channels; send one`);
      coding = { encoding, sampleRate };
    }
    offset += 8 + size + (size % 2);
  }
  if (bytes.length > maxHeaderBytes) throw new UndecodableAudioError('no WAV data chunk in the first 64 KB');
  return undefined;
}

/**
 * Turns the socket's binary messages into 16 kHz mono samples: raw linear16 (a sample may straddle two
 * messages), mu-law or A-law at the query's rate, or a WAV file whose header names them.
 */
export class AudioInput {
  private coding: Coding | undefined;
  private resampler: Resampler | undefined;
  private pending: Buffer = Buffer.alloc(0);
  /** Samples received at the source rate. */
  private sourceSamples = 0;

  constructor(encoding: ListenEncoding, sampleRate: number | undefined) {
    if (encoding !== 'container') this.coding = { encoding, sampleRate: sampleRate! };
  }

  /** Audio received so far, in ms (what the socket bills). */
  get receivedMs(): number {
    return this.coding ? (this.sourceSamples * 1000) / this.coding.sampleRate : 0;
  }

  /** The source rate once known. */
  get sampleRate(): number | undefined {
    return this.coding?.sampleRate;
  }

  /** The ms of audio `bytes` would add (before decoding them), so credit can be held first. */
  msIn(bytes: Buffer): number {
    if (!this.coding) return 0;
    const perSample = this.coding.encoding === 'linear16' ? 2 : 1;
    return ((Math.floor((this.pending.length + bytes.length) / perSample) * 1000) / this.coding.sampleRate);
  }

  async push(bytes: Buffer): Promise<Int16Array> {
    this.pending = this.pending.length > 0 ? Buffer.concat([this.pending, bytes]) : bytes;
    if (!this.coding) {
      const header = readWavHeader(this.pending);
      if (!header) return new Int16Array(0);
      this.coding = header.coding;
      this.pending = this.pending.subarray(header.dataOffset);
    }
    const coding = this.coding;
    let samples: Int16Array;
    if (coding.encoding === 'linear16') {
      const usable = this.pending.length - (this.pending.length % 2);
      samples = new Int16Array(usable / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = this.pending.readInt16LE(i * 2);
      this.pending = this.pending.subarray(usable);
    } else {
      const codes = new Uint8Array(this.pending.buffer, this.pending.byteOffset, this.pending.length);
      samples = coding.encoding === 'mulaw' ? decodeMuLaw(codes) : decodeALaw(codes);
      this.pending = Buffer.alloc(0);
    }
    this.sourceSamples += samples.length;
    if (coding.sampleRate === recognizerRate) return samples;
    this.resampler ??= await Resampler.create(coding.sampleRate, recognizerRate);
    return this.resampler.process(samples);
  }

  /** The resampler's tail, at the end of the stream. */
  flush(): Int16Array {
    return this.resampler?.flush() ?? new Int16Array(0);
  }
}
