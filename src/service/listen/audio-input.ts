import { AudioFormatError, decodeALaw, decodeMuLaw, Resampler } from '../../audio/index.js';
import { OpusInput } from './opus-input.js';
import type { ListenEncoding } from './query.js';

/** The rate the recognizer and the voice activity detector take. */
export const recognizerRate = 16000;

/** Audio the socket cannot decode (Deepgram's DATA-0000). */
export class UndecodableAudioError extends Error {}

interface Coding {
  encoding: Exclude<ListenEncoding, 'container' | 'opus'>;
  sampleRate: number;
}

const wavFormats: Record<number, Coding['encoding']> = { 1: 'linear16', 6: 'alaw', 7: 'mulaw' };
/** A WAV header longer than this without its `data` chunk is refused. */
const maxHeaderBytes = 64 * 1024;

/** Reads a mono WAV header: the coding and where the samples start, or undefined while more bytes are needed. */
function readWavHeader(bytes: Buffer): { coding: Coding; dataOffset: number } | undefined {
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

/** Containers named by their first four bytes, when the query gives no raw encoding. */
function containerOf(head: Buffer): 'wav' | 'opus' {
  const magic = head.toString('latin1', 0, 4);
  if (magic === 'RIFF') return 'wav';
  if (magic === 'OggS' || head.readUInt32BE(0) === 0x1a45dfa3) return 'opus';
  throw new UndecodableAudioError('without a raw encoding the stream must be a WAV file, Ogg Opus or WebM Opus; or give encoding=linear16|mulaw|alaw and sample_rate');
}

/**
 * Turns the socket's binary messages into 16 kHz mono samples: raw linear16 (a sample may straddle two
 * messages), mu-law or A-law at the query's rate, a WAV file whose header names them, or an Ogg or WebM
 * Opus stream (a page or block may straddle messages). `take` reads the length of what arrived before
 * `decode` spends anything on it, so the audio can be paid for first.
 */
export class AudioInput {
  private coding: Coding | undefined;
  private opus: OpusInput | undefined;
  private resampler: Resampler | undefined;
  private pending: Buffer = Buffer.alloc(0);
  /** Samples received at the source rate. */
  private sourceSamples = 0;

  constructor(
    encoding: ListenEncoding,
    sampleRate: number | undefined,
    private readonly maxPacketBytes = 1024 * 1024,
  ) {
    if (encoding === 'opus') this.opus = new OpusInput(maxPacketBytes);
    else if (encoding !== 'container') this.coding = { encoding, sampleRate: sampleRate! };
  }

  /** Audio decoded so far, in ms (what the socket bills). */
  get receivedMs(): number {
    if (this.opus) return this.opus.decodedMs;
    return this.coding ? (this.sourceSamples * 1000) / this.coding.sampleRate : 0;
  }

  /** Takes the bytes; returns the ms of audio taken and not yet decoded. */
  take(bytes: Buffer): number {
    if (this.opus) return this.takeOpus(bytes);
    this.pending = this.pending.length > 0 ? Buffer.concat([this.pending, bytes]) : bytes;
    if (!this.coding && this.pending.length >= 4) {
      if (containerOf(this.pending) === 'opus') {
        this.opus = new OpusInput(this.maxPacketBytes);
        const head = this.pending;
        this.pending = Buffer.alloc(0);
        return this.takeOpus(head);
      }
      const header = readWavHeader(this.pending);
      if (header) {
        this.coding = header.coding;
        this.pending = this.pending.subarray(header.dataOffset);
      }
    }
    if (!this.coding) return 0;
    const perSample = this.coding.encoding === 'linear16' ? 2 : 1;
    return (Math.floor(this.pending.length / perSample) * 1000) / this.coding.sampleRate;
  }

  /** Decodes what was taken. */
  async decode(): Promise<Int16Array> {
    if (this.opus) return this.decodeOpus();
    const coding = this.coding;
    if (!coding) return new Int16Array(0);
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

  /** Frees the decoder. */
  close(): void {
    this.opus?.close();
  }

  private takeOpus(bytes: Buffer): number {
    return readable(() => this.opus!.take(bytes));
  }

  private decodeOpus(): Int16Array {
    return readable(() => this.opus!.decode());
  }
}

/** Runs a step of the Opus path, turning its format errors into the socket's DATA-0000. */
function readable<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof AudioFormatError) throw new UndecodableAudioError(error.message);
    throw error;
  }
}
