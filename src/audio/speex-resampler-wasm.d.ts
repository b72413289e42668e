declare module '@echogarden/speex-resampler-wasm' {
  /** The Emscripten module of the SpeexDSP resampler; only the parts Shoal uses. */
  export interface SpeexResamplerModule {
    HEAP16: Int16Array;
    HEAPU32: Uint32Array;
    HEAP32: Int32Array;
    _malloc(bytes: number): number;
    _free(pointer: number): void;
    _speex_resampler_init(channels: number, inRate: number, outRate: number, quality: number, errorPointer: number): number;
    _speex_resampler_destroy(state: number): void;
    _speex_resampler_process_int(
      state: number,
      channelIndex: number,
      input: number,
      inputLengthPointer: number,
      output: number,
      outputLengthPointer: number,
    ): number;
    _speex_resampler_skip_zeros(state: number): number;
    _speex_resampler_reset_mem(state: number): number;
    _speex_resampler_get_input_latency(state: number): number;
    _speex_resampler_get_output_latency(state: number): number;
  }
  const createModule: (options?: object) => Promise<SpeexResamplerModule>;
  export default createModule;
}
declare module '@echogarden/speex-resampler-wasm/simd' {
  import type { SpeexResamplerModule } from '@echogarden/speex-resampler-wasm';
  const createModule: (options?: object) => Promise<SpeexResamplerModule>;
  export default createModule;
}
