import OpusScript from 'opusscript';
import { OggOpusWriter } from './ogg-opus-writer.js';

export const OPUS_SAMPLE_RATE = 48000;
/** Encoder value for "let libopus choose the bitrate". */
export const OPUS_AUTO_BITRATE = -1000;

const OPUS_SET_COMPLEXITY = 4010;
const OPUS_SET_SIGNAL = 4024;
const OPUS_SIGNAL_VOICE = 3001;
const OPUS_GET_LOOKAHEAD = 4027;

export interface OpusEncoderOptions {
  /** Bits per second, or -1000 for automatic. */
  bitrate: number;
  /** Frame length in ms; 20 ms frames. */
  frameMs: 20;
  /** libopus complexity 0..10. */
  complexity: number;
  /** Most packets per Ogg page (a page is also closed at the end of every `write`, to keep latency low). */
  maxPacketsPerPage: number;
  /** Rate of the PCM `write` takes: one of Opus' input rates. */
  sampleRate: OpusInputRate;
  /** 1, or 2 for stereo PCM written interleaved (left, right, left, ...). */
  channels: 1 | 2;
}

/** The rates libopus encodes from without resampling. */
export type OpusInputRate = 8000 | 12000 | 16000 | 24000 | 48000;

const release = new FinalizationRegistry<OpusScript>((encoder) => encoder.delete());

export const defaults: OpusEncoderOptions = {
  bitrate: OPUS_AUTO_BITRATE,
  frameMs: 20,
  complexity: 8,
  maxPacketsPerPage: 50,
  sampleRate: OPUS_SAMPLE_RATE,
  channels: 1,
};

/**
 * Streaming Ogg Opus encoder for 16-bit PCM (48 kHz mono unless told otherwise). Each `write` returns the pages that became complete
 * (the two header pages come with the first call), `end` pads the last frame and returns the end-of-stream page.
 */
export class OggOpusStreamEncoder {
  private readonly encoder: OpusScript;
  private readonly writer: OggOpusWriter;
  private readonly frameSamples: number;
  /** One frame's length in the Ogg granule's 48 kHz samples. */
  private readonly granuleFrame: number;
  private readonly channels: number;
  private readonly pending: Int16Array;
  private pendingLength = 0;
  private totalSamples = 0;
  private closed = false;
  readonly preSkip: number;

  constructor(options: Partial<OpusEncoderOptions> = {}) {
    const settings = { ...defaults, ...options };
    this.frameSamples = (settings.sampleRate * settings.frameMs) / 1000;
    this.granuleFrame = (OPUS_SAMPLE_RATE * settings.frameMs) / 1000;
    this.channels = settings.channels;
    this.pending = new Int16Array(this.frameSamples * this.channels);
    this.encoder = new OpusScript(settings.sampleRate, settings.channels, OpusScript.Application.AUDIO);
    try {
      this.encoder.setBitrate(settings.bitrate);
      this.encoder.encoderCTL(OPUS_SET_COMPLEXITY, settings.complexity);
      this.encoder.encoderCTL(OPUS_SET_SIGNAL, OPUS_SIGNAL_VOICE);
      this.preSkip = (this.lookahead() * OPUS_SAMPLE_RATE) / settings.sampleRate;
    } catch (error) {
      this.encoder.delete();
      throw error;
    }
    release.register(this, this.encoder, this);
    this.writer = new OggOpusWriter({
      preSkip: this.preSkip,
      inputSampleRate: settings.sampleRate,
      channels: settings.channels,
      maxPacketsPerPage: settings.maxPacketsPerPage,
    });
  }

  /** Stereo PCM is interleaved and holds whole sample pairs. */
  write(pcm: Int16Array): Uint8Array[] {
    this.assertOpen();
    if (pcm.length % this.channels !== 0) throw new RangeError(`stereo PCM holds sample pairs: ${pcm.length} values is not one`);
    const frameValues = this.frameSamples * this.channels;
    this.totalSamples += pcm.length / this.channels;
    const packets: Uint8Array[] = [];
    let offset = 0;
    while (offset < pcm.length) {
      const take = Math.min(frameValues - this.pendingLength, pcm.length - offset);
      this.pending.set(pcm.subarray(offset, offset + take), this.pendingLength);
      this.pendingLength += take;
      offset += take;
      if (this.pendingLength === frameValues) {
        packets.push(this.encodeFrame(this.pending));
        this.pendingLength = 0;
      }
    }
    return packets.length > 0 ? this.writer.pages(packets, this.granuleFrame) : this.writer.headers();
  }

  /** Encodes what is left plus enough silence to cover the encoder's lookahead, and closes the stream. */
  end(): Uint8Array[] {
    this.assertOpen();
    const packets: Uint8Array[] = [];
    // In the granule's 48 kHz samples, which is what the pre-skip counts.
    const scale = this.granuleFrame / this.frameSamples;
    const total = this.totalSamples * scale;
    const encoded = (this.totalSamples - this.pendingLength / this.channels) * scale;
    const framesNeeded = Math.ceil((total + this.preSkip) / this.granuleFrame) - encoded / this.granuleFrame;
    for (let i = 0; i < framesNeeded; i++) {
      this.pending.fill(0, this.pendingLength);
      packets.push(this.encodeFrame(this.pending));
      this.pendingLength = 0;
    }
    const pages = this.writer.end(packets, this.granuleFrame, total);
    this.close();
    return pages;
  }

  /** Frees the encoder without finishing the stream. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    release.unregister(this);
    this.encoder.delete();
  }

  private encodeFrame(frame: Int16Array): Uint8Array {
    // opusscript wants the little-endian bytes of the samples (one byte per element of its input buffer).
    const packet = this.encoder.encode(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength), this.frameSamples);
    return new Uint8Array(packet);
  }

  private lookahead(): number {
    const native = this.encoder as unknown as { inPCMPointer: number; inPCM: Uint16Array };
    const cell = new Int32Array(native.inPCM.buffer, native.inPCMPointer, 1);
    cell[0] = -1;
    this.encoder.encoderCTL(OPUS_GET_LOOKAHEAD, native.inPCMPointer);
    const value = new Int32Array(native.inPCM.buffer, native.inPCMPointer, 1)[0]!;
    if (value < 0 || value > this.frameSamples * 3) throw new Error(`libopus reported an implausible lookahead ${value}`);
    return value;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('Opus encoder already ended');
  }
}
