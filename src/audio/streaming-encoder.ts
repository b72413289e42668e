import { Mp3StreamEncoder } from './mp3-encoder.js';
import { OggOpusStreamEncoder } from './opus-encoder.js';
import { checkMp3Bitrate, checkOpusBitrate, checkSampleRate, FORMAT_SPECS, isAudioFormat, type AudioFormat } from './formats.js';
import { int16ToBytes } from './pcm.js';
import { Resampler } from './resampler.js';
import { WAV_HEADER_BYTES, wavHeader } from './wav-write.js';

/**
 * Turns mono 16-bit PCM chunks into bytes of one format as soon as they can be produced.
 * `write` returns the bytes ready now (possibly none; a WAV header or Ogg header pages come with the first
 * call, even an empty one), `end` the rest. Concatenating every result gives a complete file.
 */
export interface StreamingEncoder {
  readonly format: AudioFormat;
  readonly contentType: string;
  /** Rate of the encoded audio. */
  readonly sampleRate: number;
  /** Rate of the PCM `write` expects. */
  readonly inputSampleRate: number;
  write(pcm: Int16Array): Uint8Array;
  end(): Uint8Array;
  /** Frees the encoder without finishing the stream (e.g. a cancelled synthesis); harmless after `end`. */
  close(): void;
}

/**
 * The same contract with `write` and `end` answered later, so the work can run elsewhere (a worker thread).
 * Calls are served in order; `close` may be called at any time and frees the encoder without finishing.
 */
export interface AsyncStreamingEncoder {
  readonly format: AudioFormat;
  readonly contentType: string;
  readonly sampleRate: number;
  readonly inputSampleRate: number;
  write(pcm: Int16Array): Promise<Uint8Array>;
  end(): Promise<Uint8Array>;
  close(): void;
}

/** An encoder working on the calling thread, behind the asynchronous contract (for cheap formats: WAV, PCM). */
export function inlineEncoder(inner: StreamingEncoder): AsyncStreamingEncoder {
  return {
    format: inner.format,
    contentType: inner.contentType,
    sampleRate: inner.sampleRate,
    inputSampleRate: inner.inputSampleRate,
    write: async (pcm) => inner.write(pcm),
    end: async () => inner.end(),
    close: () => inner.close(),
  };
}

export interface EncoderOptions {
  format: AudioFormat;
  /** Output rate; null/undefined means the format's default (docs/service-api.md, audio formats). */
  sampleRate?: number | null;
  /** Rate of the PCM that will be written; resampled to `sampleRate` when different. Defaults to `sampleRate`. */
  inputSampleRate?: number;
  /** kbps: 64, 128 (default) or 192. */
  mp3Bitrate?: number | null;
  /** bps (24000..64000), kbps (24..64) or -1000 for automatic (default). */
  opusBitrate?: number | null;
}

/** Creates an encoder after checking the rate and bitrate against the format's table; bad values throw naming the supported ones. */
export async function createEncoder(options: EncoderOptions): Promise<StreamingEncoder> {
  const { format } = options;
  if (!isAudioFormat(format)) {
    throw new RangeError(`unknown audio format ${JSON.stringify(format)}; supported: ${Object.keys(FORMAT_SPECS).join(', ')}`);
  }
  const sampleRate = checkSampleRate(format, options.sampleRate);
  const inputSampleRate = options.inputSampleRate ?? sampleRate;
  if (format === 'mp3' && Mp3StreamEncoder.acceptsInputRate(inputSampleRate)) return createMp3(sampleRate, inputSampleRate, options);
  const inner = await createAtRate(format, sampleRate, options);
  if (inputSampleRate === sampleRate) return inner;
  const resampler = await Resampler.create(inputSampleRate, sampleRate);
  return new ResamplingEncoder(inner, resampler);
}

/** Encodes a whole signal in one go; a WAV made this way carries exact sizes, not placeholders. */
export async function encodeAudio(samples: Int16Array, sampleRate: number, options: EncoderOptions): Promise<Uint8Array> {
  const encoder = await createEncoder({ ...options, inputSampleRate: sampleRate });
  const bytes = concatBytes([encoder.write(samples), encoder.end()]).slice();
  if (encoder.format === 'wav') bytes.set(wavHeader(encoder.sampleRate, bytes.length - WAV_HEADER_BYTES));
  return bytes;
}

async function createAtRate(format: AudioFormat, sampleRate: number, options: EncoderOptions): Promise<StreamingEncoder> {
  const contentType = FORMAT_SPECS[format].contentType;
  const base = { format, contentType, sampleRate, inputSampleRate: sampleRate };
  switch (format) {
    case 'pcm':
      return { ...base, ...guarded((pcm) => int16ToBytes(pcm), () => new Uint8Array(0), () => {}) };
    case 'wav': {
      let header: Uint8Array | undefined = wavHeader(sampleRate);
      const takeHeader = (): Uint8Array => {
        const bytes = header ?? new Uint8Array(0);
        header = undefined;
        return bytes;
      };
      return { ...base, ...guarded((pcm) => concatBytes([takeHeader(), int16ToBytes(pcm)]), takeHeader, () => {}) };
    }
    case 'mp3':
      return createMp3(sampleRate, sampleRate, options);
    case 'opus': {
      const encoder = new OggOpusStreamEncoder({ bitrate: checkOpusBitrate(options.opusBitrate) });
      return {
        ...base,
        ...guarded(
          (pcm) => concatBytes(encoder.write(pcm)),
          () => concatBytes(encoder.end()),
          () => encoder.close(),
        ),
      };
    }
  }
}

async function createMp3(sampleRate: number, inputSampleRate: number, options: EncoderOptions): Promise<StreamingEncoder> {
  const encoder = await Mp3StreamEncoder.create(sampleRate, checkMp3Bitrate(options.mp3Bitrate), inputSampleRate);
  const base = { format: 'mp3' as const, contentType: FORMAT_SPECS.mp3.contentType, sampleRate, inputSampleRate };
  return { ...base, ...guarded((pcm) => encoder.write(pcm), () => encoder.end(), () => {}) };
}

/** Wraps the three operations so that writing after `end` or `close` fails loudly instead of emitting a corrupt stream. */
function guarded(
  write: (pcm: Int16Array) => Uint8Array,
  end: () => Uint8Array,
  close: () => void,
): Pick<StreamingEncoder, 'write' | 'end' | 'close'> {
  let state: 'open' | 'ended' | 'closed' = 'open';
  const assertOpen = () => {
    if (state !== 'open') throw new Error(`encoder already ${state}`);
  };
  return {
    write: (pcm) => {
      assertOpen();
      return write(pcm);
    },
    end: () => {
      assertOpen();
      state = 'ended';
      return end();
    },
    close: () => {
      if (state === 'open') close();
      if (state !== 'ended') state = 'closed';
    },
  };
}

class ResamplingEncoder implements StreamingEncoder {
  readonly format: AudioFormat;
  readonly contentType: string;
  readonly sampleRate: number;
  readonly inputSampleRate: number;

  constructor(
    private readonly inner: StreamingEncoder,
    private readonly resampler: Resampler,
  ) {
    this.format = inner.format;
    this.contentType = inner.contentType;
    this.sampleRate = inner.sampleRate;
    this.inputSampleRate = resampler.inputRate;
  }

  private state: 'open' | 'ended' | 'closed' = 'open';

  write(pcm: Int16Array): Uint8Array {
    this.assertOpen();
    return this.inner.write(this.resampler.process(pcm));
  }

  end(): Uint8Array {
    this.assertOpen();
    this.state = 'ended';
    try {
      return concatBytes([this.inner.write(this.resampler.flush()), this.inner.end()]);
    } finally {
      this.resampler.destroy();
    }
  }

  close(): void {
    this.inner.close();
    this.resampler.destroy();
    if (this.state === 'open') this.state = 'closed';
  }

  private assertOpen(): void {
    if (this.state !== 'open') throw new Error(`encoder already ${this.state}`);
  }
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
