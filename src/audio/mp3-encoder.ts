import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createEncoder, type WasmMediaEncoder } from 'wasm-media-encoders';

const mp3Wasm = () => readFile(createRequire(import.meta.url).resolve('wasm-media-encoders/wasm/mp3'));

type Mp3Bitrate = 8 | 16 | 24 | 32 | 40 | 48 | 64 | 80 | 96 | 112 | 128 | 160 | 192 | 224 | 256 | 320;
/** The compiled LAME module, kept after the first encoder so later ones skip compilation. */
let compiled: WebAssembly.Module | undefined;

type Mp3Rate = 8000 | 11025 | 12000 | 16000 | 22050 | 24000 | 32000 | 44100 | 48000;
const lameRates: ReadonlySet<number> = new Set([8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]);

/**
 * Streaming MP3 encoder (LAME compiled to WebAssembly by wasm-media-encoders, mono, constant bitrate; about
 * 3x faster than the pure-JavaScript lamejs). Each `write` returns the frames completed so far (possibly
 * none), `end` the rest.
 */
export class Mp3StreamEncoder {
  private ended = false;

  private constructor(
    private readonly encoder: WasmMediaEncoder<'audio/mpeg'>,
    readonly sampleRate: number,
    readonly bitrateKbps: number,
    readonly inputSampleRate: number,
  ) {}

  /**
   * An encoder writing `sampleRate` MP3 from PCM at `inputSampleRate` (default: the same). LAME resamples
   * itself, about a third cheaper than resampling first, so any input rate LAME accepts is taken as it is.
   */
  static async create(sampleRate: number, bitrateKbps: number, inputSampleRate = sampleRate): Promise<Mp3StreamEncoder> {
    if (!Mp3StreamEncoder.acceptsInputRate(inputSampleRate)) throw new RangeError(`LAME cannot take PCM at ${inputSampleRate} Hz`);
    const encoder = compiled
      ? await createEncoder('audio/mpeg', compiled)
      : await createEncoder('audio/mpeg', await mp3Wasm(), (module) => (compiled = module));
    encoder.configure({ channels: 1, sampleRate: inputSampleRate, bitrate: bitrateKbps as Mp3Bitrate, outputSampleRate: sampleRate as Mp3Rate });
    return new Mp3StreamEncoder(encoder, sampleRate, bitrateKbps, inputSampleRate);
  }

  static acceptsInputRate(rate: number): boolean {
    return lameRates.has(rate);
  }

  write(pcm: Int16Array): Uint8Array {
    if (this.ended) throw new Error('MP3 encoder already ended');
    if (pcm.length === 0) return new Uint8Array(0);
    const samples = new Float32Array(pcm.length);
    for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i]! / 32768;
    // The encoder hands back a view of its own memory, reused by the next call: copy it out.
    return this.encoder.encode([samples]).slice();
  }

  end(): Uint8Array {
    if (this.ended) throw new Error('MP3 encoder already ended');
    this.ended = true;
    return this.encoder.finalize().slice();
  }
}
