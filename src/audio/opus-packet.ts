import { AudioFormatError } from './errors.js';

/** The fields of an OpusHead packet (RFC 7845 section 5.1) a decoder needs. */
export interface OpusHead {
  channels: number;
  /** Samples at 48 kHz to drop from the start of the decoded audio. */
  preSkip: number;
}

/** Reads an OpusHead packet (Ogg's first packet, WebM's CodecPrivate); throws AudioFormatError when it is not one. */
export function readOpusHead(packet: Uint8Array): OpusHead {
  if (packet.length < 19 || String.fromCharCode(...packet.subarray(0, 8)) !== 'OpusHead') {
    throw new AudioFormatError('the stream does not start with an OpusHead header; it is not Opus audio');
  }
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  const channels = packet[9]!;
  if (channels < 1 || channels > 2) throw new AudioFormatError(`the Opus stream has ${channels} channels; send one or two`);
  return { channels, preSkip: view.getUint16(10, true) };
}

/** Frame lengths in 48 kHz samples by TOC configuration (RFC 6716 section 3.1): SILK, hybrid, CELT. */
function frameSamples(config: number): number {
  if (config < 12) return [480, 960, 1920, 2880][config % 4]!;
  if (config < 16) return [480, 960][config % 2]!;
  return [120, 240, 480, 960][config % 4]!;
}

/** An Opus packet's length in 48 kHz samples, from its TOC byte; 0 for an empty packet. */
export function opusPacketSamples(packet: Uint8Array): number {
  if (packet.length === 0) return 0;
  const toc = packet[0]!;
  const code = toc & 0x03;
  const frames = code === 0 ? 1 : code < 3 ? 2 : packet.length > 1 ? packet[1]! & 0x3f : 0;
  return frames * frameSamples(toc >> 3);
}
