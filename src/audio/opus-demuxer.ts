import { AudioFormatError } from './errors.js';
import { OggPacketReader } from './ogg-packet-reader.js';
import { readOpusHead, type OpusHead } from './opus-packet.js';
import { WebmPacketReader } from './webm-packet-reader.js';
import { concatBytes } from './streaming-encoder.js';

/** What one piece of an Opus stream gave: the header once it is read, and the audio packets completed. */
export interface OpusPieces {
  head?: OpusHead;
  packets: Uint8Array[];
}

/**
 * Takes an Ogg Opus or WebM (Matroska) Opus stream in pieces of any size, as a browser's MediaRecorder or a
 * file sends it, and gives its header and its Opus packets as they complete. The container is named by the
 * first bytes. Throws AudioFormatError for anything else.
 */
export class OpusDemuxer {
  private reader: OggPacketReader | WebmPacketReader | undefined;
  private head: OpusHead | undefined;
  private oggHeaders = 0;
  private sniffed: Uint8Array = new Uint8Array(0);

  constructor(private readonly maxPacketBytes: number) {}

  push(bytes: Uint8Array): OpusPieces {
    let reader = this.reader;
    if (!reader) {
      this.sniffed = concatBytes([this.sniffed, bytes]);
      if (this.sniffed.length < 4) return { packets: [] };
      bytes = this.sniffed;
      reader = this.reader = this.open(bytes);
    }
    const packets = reader.push(bytes);
    const found = this.head === undefined;
    if (reader instanceof WebmPacketReader) this.head ??= reader.head;
    else {
      while (this.oggHeaders < 2 && packets.length > 0) {
        const header = packets.shift()!;
        if (this.oggHeaders === 0) this.head = readOpusHead(header);
        else if (!startsWith(header, 'OpusTags')) throw new AudioFormatError('the Ogg Opus stream lacks its OpusTags header after OpusHead');
        this.oggHeaders++;
      }
    }
    if (packets.length > 0 && !this.head) throw new AudioFormatError('Opus audio came before its header');
    return { ...(found && this.head ? { head: this.head } : {}), packets };
  }

  private open(first: Uint8Array): OggPacketReader | WebmPacketReader {
    if (startsWith(first, 'OggS')) return new OggPacketReader(this.maxPacketBytes);
    if (first[0] === 0x1a && first[1] === 0x45 && first[2] === 0xdf && first[3] === 0xa3) return new WebmPacketReader(this.maxPacketBytes);
    const head = Array.from(first.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new AudioFormatError(`encoding=opus takes an Ogg Opus or WebM Opus stream from its first byte; these bytes start ${head}`);
  }
}

function startsWith(bytes: Uint8Array, magic: string): boolean {
  return bytes.length >= magic.length && String.fromCharCode(...bytes.subarray(0, magic.length)) === magic;
}
