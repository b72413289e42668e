import { AudioFormatError } from './errors.js';
import { readOpusHead, type OpusHead } from './opus-packet.js';
import { concatBytes } from './streaming-encoder.js';

/** Matroska element ids (with their length marker bits) this reader acts on. */
const ids = {
  segment: 0x18538067,
  cluster: 0x1f43b675,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  blockGroup: 0xa0,
  trackNumber: 0xd7,
  codecId: 0x86,
  codecPrivate: 0x63a2,
  simpleBlock: 0xa3,
  block: 0xa1,
} as const;

/** Elements entered (their children are read); a live recorder leaves Segment and Cluster sizes unknown. */
const containers = new Set<number>([ids.segment, ids.cluster, ids.tracks, ids.trackEntry, ids.blockGroup]);
/** Elements read whole; every other element is skipped as its bytes arrive. */
const wanted = new Set<number>([ids.trackNumber, ids.codecId, ids.codecPrivate, ids.simpleBlock, ids.block]);

interface Track {
  number?: number;
  codec?: string;
  codecPrivate?: Uint8Array;
}

/** A variable-length integer at `offset`: its value (undefined when all value bits are set: "unknown") and length. */
function vint(bytes: Uint8Array, offset: number, maxLength: number, keepMarker: boolean): { value: number | undefined; length: number } | null {
  if (offset >= bytes.length) return null;
  const first = bytes[offset]!;
  const length = first === 0 ? 9 : Math.clz32(first) - 23;
  if (length > maxLength) throw new AudioFormatError(`a WebM element header at byte ${offset} is malformed; the stream is not WebM (or bytes were lost)`);
  if (offset + length > bytes.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + bytes[offset + i]!;
    allOnes &&= bytes[offset + i] === 0xff;
  }
  return { value: allOnes && !keepMarker ? undefined : value, length };
}

/**
 * Reads the Opus packets of a WebM (Matroska) stream's first Opus track from bytes that arrive in pieces of any
 * size, as MediaRecorder sends them (Segment and Cluster of unknown size). The track's OpusHead is its
 * CodecPrivate. Laced blocks are refused: recorders put one Opus packet in each block.
 */
export class WebmPacketReader {
  private buffered: Uint8Array = new Uint8Array(0);
  private skipLeft = 0;
  private readonly tracks: Track[] = [];
  private opusTrack: number | undefined;
  head: OpusHead | undefined;

  constructor(private readonly maxPacketBytes: number) {}

  push(bytes: Uint8Array): Uint8Array[] {
    this.buffered = this.buffered.length > 0 ? concatBytes([this.buffered, bytes]) : bytes;
    const packets: Uint8Array[] = [];
    let offset = 0;
    for (;;) {
      if (this.skipLeft > 0) {
        const skipped = Math.min(this.skipLeft, this.buffered.length - offset);
        this.skipLeft -= skipped;
        offset += skipped;
        if (this.skipLeft > 0) break;
      }
      const id = vint(this.buffered, offset, 4, true);
      if (!id) break;
      const size = vint(this.buffered, offset + id.length, 8, false);
      if (!size) break;
      const headerBytes = id.length + size.length;
      if (containers.has(id.value!)) {
        if (id.value === ids.trackEntry) this.tracks.push({});
        offset += headerBytes;
        continue;
      }
      if (size.value === undefined) throw new AudioFormatError(`WebM element 0x${id.value!.toString(16)} has an unknown size; only Segment and Cluster may`);
      if (!wanted.has(id.value!)) {
        offset += headerBytes;
        this.skipLeft = size.value;
        continue;
      }
      if (size.value > this.maxPacketBytes) throw new AudioFormatError(`a WebM element is longer than ${this.maxPacketBytes} bytes`);
      if (offset + headerBytes + size.value > this.buffered.length) break;
      const body = this.buffered.subarray(offset + headerBytes, offset + headerBytes + size.value);
      offset += headerBytes + size.value;
      const packet = this.read(id.value!, body);
      if (packet) packets.push(packet);
    }
    this.buffered = new Uint8Array(this.buffered.subarray(offset));
    return packets;
  }

  private read(id: number, body: Uint8Array): Uint8Array | undefined {
    const track = this.tracks[this.tracks.length - 1];
    switch (id) {
      case ids.trackNumber:
        if (track) track.number = body.reduce((value, byte) => value * 256 + byte, 0);
        return undefined;
      case ids.codecId:
        if (track) track.codec = String.fromCharCode(...body).replace(/\0+$/, '');
        return undefined;
      case ids.codecPrivate:
        if (track) track.codecPrivate = new Uint8Array(body);
        return undefined;
      default:
        return this.block(body);
    }
  }

  private block(body: Uint8Array): Uint8Array | undefined {
    this.opusTrack ??= this.chooseTrack();
    const track = vint(body, 0, 8, false);
    if (!track || track.length + 3 > body.length) throw new AudioFormatError('a WebM block is shorter than its header');
    if (track.value !== this.opusTrack) return undefined;
    const lacing = (body[track.length + 2]! >> 1) & 0x03;
    if (lacing !== 0) throw new AudioFormatError('laced WebM blocks are not read; put one Opus packet in each block');
    return new Uint8Array(body.subarray(track.length + 3));
  }

  private chooseTrack(): number {
    const opus = this.tracks.find((track) => track.codec === 'A_OPUS' && track.number !== undefined);
    if (!opus) {
      const codecs = this.tracks.map((track) => track.codec ?? '?').join(', ') || 'no track header';
      throw new AudioFormatError(`the WebM stream has no Opus audio track (found ${codecs}); encoding=opus takes A_OPUS`);
    }
    if (!opus.codecPrivate) throw new AudioFormatError('the WebM Opus track has no CodecPrivate (OpusHead)');
    this.head = readOpusHead(opus.codecPrivate);
    return opus.number!;
  }
}
