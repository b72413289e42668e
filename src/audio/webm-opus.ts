import { AudioTooLongError } from './audio-duration.js';
import type { DecodedAudio, DecodeLimits } from './decoders.js';
import { AudioFormatError } from './errors.js';
import { OpusDemuxer } from './opus-demuxer.js';
import { opusPacketSamples } from './opus-packet.js';
import { OpusStreamDecoder } from './opus-stream-decoder.js';
import { concatSamples } from './pcm.js';

/**
 * Decodes a WebM (Matroska) file's Opus track, as a browser's MediaRecorder writes it, to 48 kHz mono. The
 * length is read from the packets before any is decoded, so a file over the limit costs no decoding.
 */
export async function decodeWebmOpus(bytes: Uint8Array, limits?: DecodeLimits): Promise<DecodedAudio> {
  const { head, packets } = new OpusDemuxer(bytes.length).push(bytes);
  if (!head || packets.length === 0) throw new AudioFormatError('the WebM file holds no Opus audio');
  const durationMs = packets.reduce((sum, packet) => sum + opusPacketSamples(packet), 0) / 48;
  if (limits && durationMs > limits.maxDurationMs) throw new AudioTooLongError(durationMs, limits.maxDurationMs);
  const decoder = new OpusStreamDecoder(head, 48000);
  try {
    return { samples: concatSamples(packets.map((packet) => decoder.decode(packet))), sampleRate: 48000 };
  } finally {
    decoder.close();
  }
}
