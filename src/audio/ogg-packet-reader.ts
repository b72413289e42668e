import { AudioFormatError } from './errors.js';
import { OGG_BEGINNING_OF_STREAM, oggCrc32 } from './ogg-page.js';
import { concatBytes } from './streaming-encoder.js';

/**
 * Reads the packets of one Ogg logical stream from bytes that arrive in pieces of any size (a page may be
 * split across pieces). Each page's CRC is checked; pages of other streams in the same file are skipped.
 */
export class OggPacketReader {
  private buffered: Uint8Array = new Uint8Array(0);
  private serial: number | undefined;
  private partial: Uint8Array[] = [];
  private partialBytes = 0;
  private pages = 0;

  /** @param maxPacketBytes a packet longer than this is refused (AudioFormatError). */
  constructor(private readonly maxPacketBytes: number) {}

  /** The packets completed by `bytes`, in order. Throws AudioFormatError on bytes that are not Ogg. */
  push(bytes: Uint8Array): Uint8Array[] {
    this.buffered = this.buffered.length > 0 ? concatBytes([this.buffered, bytes]) : bytes;
    const packets: Uint8Array[] = [];
    let offset = 0;
    while (offset + 27 <= this.buffered.length) {
      const page = this.buffered.subarray(offset);
      if (page[0] !== 0x4f || page[1] !== 0x67 || page[2] !== 0x67 || page[3] !== 0x53) {
        throw new AudioFormatError(`Ogg page ${this.pages} lacks the "OggS" capture pattern; the stream is not Ogg (or bytes were lost)`);
      }
      const segments = page[26]!;
      if (27 + segments > page.length) break;
      let bodyBytes = 0;
      for (let i = 0; i < segments; i++) bodyBytes += page[27 + i]!;
      const pageBytes = 27 + segments + bodyBytes;
      if (pageBytes > page.length) break;
      this.readPage(page.subarray(0, pageBytes), segments, packets);
      offset += pageBytes;
    }
    this.buffered = new Uint8Array(this.buffered.subarray(offset));
    return packets;
  }

  private readPage(page: Uint8Array, segments: number, packets: Uint8Array[]): void {
    const copy = new Uint8Array(page);
    const view = new DataView(copy.buffer);
    const stored = view.getUint32(22, true);
    copy.fill(0, 22, 26);
    if (oggCrc32(copy) !== stored) throw new AudioFormatError(`Ogg page ${this.pages} fails its CRC check (corrupt data)`);
    this.pages++;
    const serial = view.getUint32(14, true);
    if (this.serial === undefined) {
      if (!(page[5]! & OGG_BEGINNING_OF_STREAM)) throw new AudioFormatError('the Ogg stream does not start with a beginning-of-stream page; send it from its first byte');
      this.serial = serial;
    }
    if (serial !== this.serial) return;
    let body = 27 + segments;
    for (let i = 0; i < segments; i++) {
      const lacing = page[27 + i]!;
      this.partial.push(page.subarray(body, body + lacing));
      this.partialBytes += lacing;
      body += lacing;
      if (this.partialBytes > this.maxPacketBytes) throw new AudioFormatError(`an Ogg packet is longer than ${this.maxPacketBytes} bytes`);
      if (lacing < 255) {
        packets.push(this.partial.length === 1 ? new Uint8Array(this.partial[0]!) : concatBytes(this.partial));
        this.partial = [];
        this.partialBytes = 0;
      }
    }
  }
}
