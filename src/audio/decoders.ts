import { AudioTooLongError } from './audio-duration.js';
import { AudioFormatError } from './errors.js';
import { completeOggPrefix } from './ogg-page.js';
import { concatSamples, float32ToInt16 } from './pcm.js';

/** Mono 16-bit PCM with its sample rate, as every decoder here returns it. */
export interface DecodedAudio {
  samples: Int16Array;
  sampleRate: number;
}

/** What a decode may hold: it stops with AudioTooLongError once the audio decoded so far is longer. */
export interface DecodeLimits {
  maxDurationMs: number;
}

interface WasmDecoded {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
  errors: { message: string }[];
  bitDepth?: number;
}

/** A wasm decoder fed chunk by chunk (MPEG, Ogg Opus and FLAC decoders all keep their state between calls). */
interface ChunkDecoder {
  decode(chunk: Uint8Array): WasmDecoded | Promise<WasmDecoded>;
  flush?(): Promise<WasmDecoded>;
}

/**
 * Input bytes per decoder call. Small, because a chunk of a degenerate file (constant FLAC frames, empty Opus
 * frames) can expand a thousandfold: each call's output stays a few megabytes, and the limit is checked after each.
 */
const chunkBytes = 4096;

/**
 * Feeds `bytes` to the decoder in chunks, keeping each chunk's output as mono 16-bit PCM (`keep` false: only
 * counting), and stops with AudioTooLongError as soon as the decoded audio is longer than the limit.
 */
async function decodeInChunks(
  codec: string,
  decoder: ChunkDecoder,
  bytes: Uint8Array,
  limits: DecodeLimits | undefined,
  keep = true,
  fullScale: (decoded: WasmDecoded) => number = () => 32768,
): Promise<DecodedAudio> {
  const parts: Int16Array[] = [];
  let decodedSamples = 0;
  let sampleRate = 0;
  let firstError: string | undefined;
  const take = (decoded: WasmDecoded) => {
    if (decoded.errors.length > 0) firstError ??= decoded.errors[0]!.message;
    if (decoded.samplesDecoded === 0 || decoded.channelData.length === 0) return;
    sampleRate = decoded.sampleRate;
    decodedSamples += decoded.samplesDecoded;
    const decodedMs = (decodedSamples * 1000) / sampleRate;
    if (limits && decodedMs > limits.maxDurationMs) throw new AudioTooLongError(decodedMs, limits.maxDurationMs, false);
    if (keep) parts.push(toMono(decoded, fullScale(decoded)));
  };
  for (let offset = 0; offset < bytes.length; offset += chunkBytes) take(await decoder.decode(bytes.subarray(offset, offset + chunkBytes)));
  if (decoder.flush) take(await decoder.flush());
  if (decodedSamples === 0) throw new AudioFormatError(`no ${codec} audio could be decoded${firstError ? `: ${firstError}` : ''}`);
  return { samples: keep ? concatSamples(parts) : new Int16Array(0), sampleRate };
}

async function withDecoder<D extends { ready: Promise<void>; free(): void }>(codec: string, decoder: D, run: (decoder: D) => Promise<DecodedAudio>): Promise<DecodedAudio> {
  try {
    await decoder.ready;
    return await run(decoder);
  } catch (error) {
    if (error instanceof AudioFormatError || error instanceof AudioTooLongError) throw error;
    throw new AudioFormatError(`cannot decode ${codec}: ${(error as Error).message}`);
  } finally {
    decoder.free();
  }
}

/** Decodes an MP3 (MPEG layer I/II/III) file. */
export async function decodeMp3(bytes: Uint8Array, limits?: DecodeLimits): Promise<DecodedAudio> {
  const { MPEGDecoder } = await import('mpg123-decoder');
  return withDecoder('MP3', new MPEGDecoder(), (decoder) => decodeInChunks('MP3', decoder, bytes, limits));
}

/**
 * Decodes an Ogg Opus file; the result is at 48 kHz with the pre-skip removed. Page CRCs are checked first (a
 * corrupt page is an AudioFormatError); a stream cut mid-page is decoded up to its last whole page.
 */
export async function decodeOggOpus(bytes: Uint8Array, limits?: DecodeLimits): Promise<DecodedAudio> {
  let complete: { bytes: number; pages: number };
  try {
    complete = completeOggPrefix(bytes);
  } catch (error) {
    throw new AudioFormatError(`cannot decode Ogg Opus: ${(error as Error).message}`);
  }
  if (complete.pages < 3) {
    throw new AudioFormatError(`Ogg Opus input is truncated: ${complete.pages} whole page(s), at least 3 needed (OpusHead, OpusTags, audio)`);
  }
  const { OggOpusDecoder } = await import('ogg-opus-decoder');
  return withDecoder('Ogg Opus', new OggOpusDecoder(), (decoder) => decodeInChunks('Ogg Opus', decoder, bytes.subarray(0, complete.bytes), limits));
}

/**
 * Decodes a FLAC file. With a limit, the file is first decoded only to count its samples (STREAMINFO's total
 * may be absent or false, and holding up to the limit's worth of a high-rate file would cost hundreds of
 * megabytes before the refusal), then decoded again to keep them.
 */
export async function decodeFlac(bytes: Uint8Array, limits?: DecodeLimits): Promise<DecodedAudio> {
  const { FLACDecoder } = await import('@wasm-audio-decoders/flac');
  if (limits) await withDecoder('FLAC', new FLACDecoder(), (decoder) => decodeInChunks('FLAC', decoder, bytes, limits, false));
  return withDecoder('FLAC', new FLACDecoder(), (decoder) => decodeInChunks('FLAC', decoder, bytes, limits, true, flacFullScale));
}

/** The FLAC decoder divides b-bit integers by 2^(b-1) - 1; undo that exactly, then scale to 16 bits. */
function flacFullScale(decoded: WasmDecoded): number {
  const depth = decoded.bitDepth || 16;
  return (Math.pow(2, depth - 1) - 1) * Math.pow(2, 16 - depth);
}

/** One decoder call's output as mono 16-bit PCM. */
function toMono(decoded: WasmDecoded, fullScale: number): Int16Array {
  const { channelData, samplesDecoded } = decoded;
  if (channelData.length === 1) return float32ToInt16(channelData[0]!.subarray(0, samplesDecoded), fullScale);
  const mixed = new Float32Array(samplesDecoded);
  const scale = 1 / channelData.length;
  for (const channel of channelData) {
    for (let i = 0; i < samplesDecoded; i++) mixed[i]! += channel[i]! * scale;
  }
  return float32ToInt16(mixed, fullScale);
}
