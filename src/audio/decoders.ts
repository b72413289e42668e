import { AudioFormatError } from './errors.js';
import { completeOggPrefix } from './ogg-page.js';
import { float32ToInt16 } from './pcm.js';

/** Mono 16-bit PCM with its sample rate, as every decoder here returns it. */
export interface DecodedAudio {
  samples: Int16Array;
  sampleRate: number;
}

interface WasmDecoded {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
  errors: { message: string }[];
}

/** Decodes a whole MP3 (MPEG layer I/II/III) file. */
export async function decodeMp3(bytes: Uint8Array): Promise<DecodedAudio> {
  const { MPEGDecoder } = await import('mpg123-decoder');
  const decoder = new MPEGDecoder();
  try {
    await decoder.ready;
    return toMono('MP3', decoder.decode(bytes));
  } catch (error) {
    if (error instanceof AudioFormatError) throw error;
    throw new AudioFormatError(`cannot decode MP3: ${(error as Error).message}`);
  } finally {
    decoder.free();
  }
}

/**
 * Decodes a whole Ogg Opus file; the result is at 48 kHz with the pre-skip removed. Page CRCs are checked
 * first (a corrupt page is an AudioFormatError); a stream cut mid-page is decoded up to its last whole page.
 */
export async function decodeOggOpus(bytes: Uint8Array): Promise<DecodedAudio> {
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
  const decoder = new OggOpusDecoder();
  try {
    await decoder.ready;
    return toMono('Ogg Opus', await decoder.decodeFile(bytes.subarray(0, complete.bytes)));
  } catch (error) {
    if (error instanceof AudioFormatError) throw error;
    throw new AudioFormatError(`cannot decode Ogg Opus: ${(error as Error).message}`);
  } finally {
    decoder.free();
  }
}

/** Decodes a whole FLAC file. */
export async function decodeFlac(bytes: Uint8Array): Promise<DecodedAudio> {
  const { FLACDecoder } = await import('@wasm-audio-decoders/flac');
  const decoder = new FLACDecoder();
  try {
    await decoder.ready;
    const decoded = await decoder.decodeFile(bytes);
    // The FLAC decoder divides b-bit integers by 2^(b-1) - 1; undo that exactly, then scale to 16 bits.
    const depth = decoded.bitDepth || 16;
    return toMono('FLAC', decoded, (Math.pow(2, depth - 1) - 1) * Math.pow(2, 16 - depth));
  } catch (error) {
    if (error instanceof AudioFormatError) throw error;
    throw new AudioFormatError(`cannot decode FLAC: ${(error as Error).message}`);
  } finally {
    decoder.free();
  }
}

function toMono(codec: string, decoded: WasmDecoded, fullScale = 32768): DecodedAudio {
  const { channelData, samplesDecoded, sampleRate, errors } = decoded;
  if (samplesDecoded === 0 || channelData.length === 0) {
    const reason = errors.length > 0 ? `: ${errors[0]!.message}` : '';
    throw new AudioFormatError(`no ${codec} audio could be decoded${reason}`);
  }
  if (channelData.length === 1) return { samples: float32ToInt16(channelData[0]!, fullScale), sampleRate };
  const mixed = new Float32Array(samplesDecoded);
  const scale = 1 / channelData.length;
  for (const channel of channelData) {
    for (let i = 0; i < samplesDecoded; i++) mixed[i]! += channel[i]! * scale;
  }
  return { samples: float32ToInt16(mixed, fullScale), sampleRate };
}
