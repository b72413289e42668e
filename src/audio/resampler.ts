import type { SpeexResamplerModule } from '@echogarden/speex-resampler-wasm';
import { UnsupportedAudioSettingError } from './errors.js';
import { concatSamples } from './pcm.js';
import type { AudioFrame } from './frame.js';

/** The rates Shoal moves audio at, in Hz; tested pairwise. Any integer rate in RESAMPLER_RATE_RANGE works too (uploads come at odd rates). */
export const RESAMPLER_RATES = [8000, 16000, 22050, 24000, 32000, 44100, 48000] as const;
export const RESAMPLER_RATE_RANGE = { min: 4000, max: 192000 } as const;

export interface ResamplerOptions {
  /** Speex quality 0 (fastest) .. 10 (best). */
  quality: number;
}

export const defaults: ResamplerOptions = { quality: 7 };

let modulePromise: Promise<SpeexResamplerModule> | undefined;

/** Loads the SpeexDSP WASM module ahead of the first `Resampler.create`, e.g. at start-up. */
export async function preloadResampler(): Promise<void> {
  await loadSpeex();
}

/** Loads (once) the SpeexDSP WASM module; later calls share it. */
function loadSpeex(): Promise<SpeexResamplerModule> {
  modulePromise ??= (async () => {
    try {
      const { default: create } = await import('@echogarden/speex-resampler-wasm/simd');
      return await create();
    } catch {
      const { default: create } = await import('@echogarden/speex-resampler-wasm');
      return create();
    }
  })();
  modulePromise.catch(() => {
    modulePromise = undefined;
  });
  return modulePromise;
}

const release = new FinalizationRegistry<() => void>((free) => free());

/**
 * Streaming resampler for mono 16-bit PCM. Filter state is kept across `process` calls, so a signal cut into
 * chunks comes out the same as in one piece; `flush` emits the filter's tail and readies it for a new stream.
 * Output is aligned with input (the filter delay is skipped) and totals round(inputSamples * outRate / inRate).
 */
export class Resampler {
  private state = 0;
  private inputPointer = 0;
  private outputPointer = 0;
  private lengthsPointer = 0;
  private capacity = 0;
  private samplesIn = 0;
  private samplesOut = 0;
  private originMs: number | undefined;
  private readonly buffers: number[] = [];
  private readonly unregisterToken = {};

  private constructor(
    readonly inputRate: number,
    readonly outputRate: number,
    private readonly speex: SpeexResamplerModule | undefined,
    quality: number,
  ) {
    if (!speex) return;
    const errorPointer = speex._malloc(4);
    this.state = speex._speex_resampler_init(1, inputRate, outputRate, quality, errorPointer);
    const error = speex.HEAP32[errorPointer >> 2]!;
    speex._free(errorPointer);
    if (!this.state || error !== 0) throw new Error(`speex resampler init failed (error ${error})`);
    speex._speex_resampler_skip_zeros(this.state);
    this.lengthsPointer = speex._malloc(8);
    const [state, lengths, buffers] = [this.state, this.lengthsPointer, this.buffers];
    release.register(this, () => freeAll(speex, state, lengths, buffers), this.unregisterToken);
  }

  static async create(inputRate: number, outputRate: number, options: Partial<ResamplerOptions> = {}): Promise<Resampler> {
    checkRate(inputRate);
    checkRate(outputRate);
    const { quality } = { ...defaults, ...options };
    if (!Number.isInteger(quality) || quality < 0 || quality > 10) {
      throw new RangeError(`resampler quality must be an integer 0..10, got ${quality}`);
    }
    const speex = inputRate === outputRate ? undefined : await loadSpeex();
    return new Resampler(inputRate, outputRate, speex, quality);
  }

  /** Resamples one chunk; the result may be a few samples shorter or longer than the exact ratio (the rest follows). */
  process(samples: Int16Array): Int16Array {
    this.samplesIn += samples.length;
    if (!this.speex) {
      this.samplesOut += samples.length;
      return samples.slice();
    }
    if (this.state === 0) throw new Error('resampler used after destroy()');
    const out = this.run(samples);
    this.samplesOut += out.length;
    return out;
  }

  /** Resamples a frame; output timestamps follow the first input frame's timestamp plus the output produced so far. */
  processFrame(frame: AudioFrame): AudioFrame {
    if (frame.sampleRate !== this.inputRate) {
      throw new RangeError(`resampler expects ${this.inputRate} Hz frames, got ${frame.sampleRate} Hz`);
    }
    this.originMs ??= frame.timestampMs - (this.samplesIn * 1000) / this.inputRate;
    const timestampMs = this.originMs + (this.samplesOut * 1000) / this.outputRate;
    return { samples: this.process(frame.samples), sampleRate: this.outputRate, timestampMs };
  }

  /** Emits what the filter still holds, so the stream's total is exact, then resets for a new stream. */
  flush(): Int16Array {
    const expected = Math.round((this.samplesIn * this.outputRate) / this.inputRate);
    let tail: Int16Array = new Int16Array(0);
    if (this.speex && this.state !== 0) {
      const speex = this.speex;
      const latency = Math.max(1, speex._speex_resampler_get_input_latency(this.state));
      const parts: Int16Array[] = [];
      let produced = this.samplesOut;
      for (let round = 0; produced < expected && round < 8; round++) {
        const part = this.run(new Int16Array(latency * 2));
        parts.push(part);
        produced += part.length;
      }
      tail = concatSamples(parts).subarray(0, Math.max(0, expected - this.samplesOut));
      speex._speex_resampler_reset_mem(this.state);
      speex._speex_resampler_skip_zeros(this.state);
    }
    this.samplesIn = 0;
    this.samplesOut = 0;
    this.originMs = undefined;
    return tail.slice();
  }

  /** Frees the WASM memory; the resampler cannot be used afterwards. */
  destroy(): void {
    if (!this.speex || this.state === 0) return;
    release.unregister(this.unregisterToken);
    freeAll(this.speex, this.state, this.lengthsPointer, this.buffers);
    this.state = 0;
  }

  private run(samples: Int16Array): Int16Array {
    const speex = this.speex!;
    const maxOut = Math.ceil((samples.length * this.outputRate) / this.inputRate) + 64;
    this.ensureCapacity(Math.max(samples.length, maxOut));
    speex.HEAP16.set(samples, this.inputPointer >> 1);
    const parts: Int16Array[] = [];
    let consumed = 0;
    let produced = 0;
    while (consumed < samples.length || (samples.length === 0 && produced === 0)) {
      const lengths = speex.HEAPU32;
      lengths[this.lengthsPointer >> 2] = samples.length - consumed;
      lengths[(this.lengthsPointer >> 2) + 1] = this.capacity;
      const error = speex._speex_resampler_process_int(
        this.state,
        0,
        this.inputPointer + consumed * 2,
        this.lengthsPointer,
        this.outputPointer,
        this.lengthsPointer + 4,
      );
      if (error !== 0) throw new Error(`speex resampler failed (error ${error})`);
      const usedIn = speex.HEAPU32[this.lengthsPointer >> 2]!;
      const madeOut = speex.HEAPU32[(this.lengthsPointer >> 2) + 1]!;
      const heap = speex.HEAP16;
      parts.push(heap.slice(this.outputPointer >> 1, (this.outputPointer >> 1) + madeOut));
      consumed += usedIn;
      produced += madeOut;
      if (usedIn === 0 && madeOut === 0) break;
    }
    return parts.length === 1 ? parts[0]! : concatSamples(parts);
  }

  private ensureCapacity(samples: number): void {
    if (samples <= this.capacity) return;
    const speex = this.speex!;
    for (const pointer of this.buffers) speex._free(pointer);
    this.buffers.length = 0;
    const capacity = Math.max(samples, 4096);
    this.inputPointer = speex._malloc(capacity * 2);
    this.outputPointer = speex._malloc(capacity * 2);
    this.buffers.push(this.inputPointer, this.outputPointer);
    this.capacity = capacity;
  }
}

/** Resamples a whole signal in one go; same-rate input is returned as a copy. */
export async function resample(
  samples: Int16Array,
  inputRate: number,
  outputRate: number,
  options: Partial<ResamplerOptions> = {},
): Promise<Int16Array> {
  const resampler = await Resampler.create(inputRate, outputRate, options);
  try {
    return concatSamples([resampler.process(samples), resampler.flush()]);
  } finally {
    resampler.destroy();
  }
}

function checkRate(rate: number): void {
  const { min, max } = RESAMPLER_RATE_RANGE;
  if (!Number.isInteger(rate) || rate < min || rate > max) {
    throw new UnsupportedAudioSettingError(
      `Invalid sample rate ${rate} for resampling. Supported: integers from ${min} to ${max} Hz (usually ${RESAMPLER_RATES.join(', ')})`,
    );
  }
}

function freeAll(speex: SpeexResamplerModule, state: number, lengths: number, buffers: number[]): void {
  if (state) speex._speex_resampler_destroy(state);
  if (lengths) speex._free(lengths);
  for (const pointer of buffers) speex._free(pointer);
  buffers.length = 0;
}
