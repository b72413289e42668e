/**
 * Decompression bombs: small files that hold hours of audio, built here byte by byte so the tests need no
 * encoder. Each one is a valid file its decoder plays as silence.
 */
import { buildOggPage, OGG_BEGINNING_OF_STREAM, OGG_END_OF_STREAM } from '../../src/audio/ogg-page.js';

function crc8(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** FLAC's UTF-8-like coding of the frame number. */
function frameNumber(n: number): number[] {
  if (n < 0x80) return [n];
  if (n < 0x800) return [0xc0 | (n >> 6), 0x80 | (n & 0x3f)];
  if (n < 0x10000) return [0xe0 | (n >> 12), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)];
  return [0xf0 | (n >> 18), 0x80 | ((n >> 12) & 0x3f), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)];
}

/**
 * A mono 16-bit 16 kHz FLAC of `seconds` of silence: 4096-sample frames with one constant subframe each (about
 * 14 bytes per 0.256 s). `declaredSeconds` is what STREAMINFO says (0: "unknown", as streaming encoders write).
 */
export function silentFlac(seconds: number, declaredSeconds = seconds): Uint8Array {
  const rate = 16_000;
  const block = 4096;
  const frames = Math.ceil((seconds * rate) / block);
  const total = Math.round(declaredSeconds * rate);
  const info = new Uint8Array(34);
  const view = new DataView(info.buffer);
  view.setUint16(0, block);
  view.setUint16(2, block);
  // sample rate (20 bits), channels - 1 (3), bits - 1 (5), total samples (36)
  info[10] = rate >> 12;
  info[11] = (rate >> 4) & 0xff;
  info[12] = ((rate & 0x0f) << 4) | (0 << 1) | (15 >> 4);
  info[13] = ((15 & 0x0f) << 4) | Math.floor(total / 2 ** 32);
  view.setUint32(14, total >>> 0);
  const parts: Uint8Array[] = [new Uint8Array([0x66, 0x4c, 0x61, 0x43, 0x80, 0, 0, 34]), info];
  for (let n = 0; n < frames; n++) {
    // sync + fixed blocking, 4096-sample blocks at 16 kHz, mono, 16 bits
    const header = new Uint8Array([0xff, 0xf8, 0xc5, 0x08, ...frameNumber(n)]);
    const frame = new Uint8Array(header.length + 1 + 3 + 2);
    frame.set(header);
    frame[header.length] = crc8(header);
    // constant subframe of value 0 (frame[...+1..+3] stay 0), then the frame's CRC-16
    const crc = crc16(frame.subarray(0, frame.length - 2));
    frame[frame.length - 2] = crc >> 8;
    frame[frame.length - 1] = crc & 0xff;
    parts.push(frame);
  }
  return join(parts);
}

/**
 * An Ogg Opus file of `seconds` of silence: 120 ms packets of six empty SILK frames (2 bytes each, which the
 * decoder conceals as silence).
 */
export function silentOggOpus(seconds: number): Uint8Array {
  const head = new Uint8Array(19);
  head.set(new TextEncoder().encode('OpusHead'));
  head[8] = 1;
  head[9] = 1;
  new DataView(head.buffer).setUint32(12, 16_000, true);
  const tags = new Uint8Array(16);
  tags.set(new TextEncoder().encode('OpusTags'));
  const serial = 0x5b0a1;
  const pages = [
    buildOggPage({ serial, sequence: 0, granule: 0n, flags: OGG_BEGINNING_OF_STREAM, packets: [head] }),
    buildOggPage({ serial, sequence: 1, granule: 0n, flags: 0, packets: [tags] }),
  ];
  const packets = Math.ceil(seconds / 0.12);
  const packet = new Uint8Array([0x0b, 0x06]); // SILK NB 20 ms, code 3 (CBR), 6 frames of 0 bytes
  let granule = 0n;
  for (let sent = 0, sequence = 2; sent < packets; sequence++) {
    const count = Math.min(255, packets - sent);
    sent += count;
    granule += BigInt(count * 5760);
    const flags = sent === packets ? OGG_END_OF_STREAM : 0;
    pages.push(buildOggPage({ serial, sequence, granule, flags, packets: Array.from({ length: count }, () => packet) }));
  }
  return join(pages);
}

/** An MP3 of `seconds` of silence: MPEG-2.5 layer III frames at 8 kbps, 8 kHz mono (72 bytes per 72 ms). */
export function silentMp3(seconds: number): Uint8Array {
  const frame = new Uint8Array(72);
  frame.set([0xff, 0xe3, 0x18, 0xc4]);
  const frames = Math.ceil(seconds / 0.072);
  const out = new Uint8Array(frames * frame.length);
  for (let i = 0; i < frames; i++) out.set(frame, i * frame.length);
  return out;
}

/** A WAV whose header says 1 sample per second: `bytes` of 8-bit data last `bytes` seconds. */
export function slowWav(bytes: number): Uint8Array {
  const out = new Uint8Array(44 + bytes).fill(128, 44);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode('RIFF'), 0);
  view.setUint32(4, 36 + bytes, true);
  out.set(new TextEncoder().encode('WAVEfmt '), 8);
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, 1, true);
  view.setUint32(28, 1, true);
  view.setUint16(32, 1, true);
  view.setUint16(34, 8, true);
  out.set(new TextEncoder().encode('data'), 36);
  view.setUint32(40, bytes, true);
  return out;
}

function join(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
