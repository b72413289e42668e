import { buildOggPage, lacingSegments, MAX_SEGMENTS_PER_PAGE, OGG_BEGINNING_OF_STREAM, OGG_END_OF_STREAM } from './ogg-page.js';

export interface OggOpusWriterOptions {
  /** Samples (at 48 kHz) the decoder drops at the start: the encoder's lookahead. */
  preSkip: number;
  /** Rate of the audio before encoding, stored in OpusHead for information only. */
  inputSampleRate: number;
  /** 1 (mono) or 2 (stereo: left, right; channel mapping family 0). */
  channels: 1 | 2;
  /** Ogg logical stream serial number. */
  serial: number;
  vendor: string;
  /** Most packets put on one page. */
  maxPacketsPerPage: number;
}

export const defaults: Omit<OggOpusWriterOptions, 'preSkip' | 'serial'> = {
  inputSampleRate: 48000,
  channels: 1,
  vendor: 'shoal',
  maxPacketsPerPage: 50,
};

/**
 * Muxes mono or stereo Opus packets into an Ogg Opus stream (RFC 7845): an OpusHead page (beginning of stream), an
 * OpusTags page, then audio pages whose granule positions count 48 kHz samples including the pre-skip.
 */
export class OggOpusWriter {
  private sequence = 0;
  private granule = 0;
  private started = false;
  private ended = false;
  private readonly options: OggOpusWriterOptions;

  constructor(options: Partial<OggOpusWriterOptions> & Pick<OggOpusWriterOptions, 'preSkip'>) {
    this.options = { ...defaults, serial: (Math.random() * 0x100000000) >>> 0, ...options };
  }

  /** The two header pages; returned once, by the first call of `headers`, `pages` or `end`. */
  headers(): Uint8Array[] {
    if (this.started) return [];
    this.started = true;
    const { serial, vendor, preSkip, inputSampleRate, channels } = this.options;
    const head = new Uint8Array(19);
    const headView = new DataView(head.buffer);
    head.set(ascii('OpusHead'), 0);
    head[8] = 1;
    head[9] = channels;
    headView.setUint16(10, preSkip, true);
    headView.setUint32(12, inputSampleRate, true);
    headView.setInt16(16, 0, true);
    head[18] = 0;
    const vendorBytes = ascii(vendor);
    const tags = new Uint8Array(8 + 4 + vendorBytes.length + 4);
    const tagsView = new DataView(tags.buffer);
    tags.set(ascii('OpusTags'), 0);
    tagsView.setUint32(8, vendorBytes.length, true);
    tags.set(vendorBytes, 12);
    tagsView.setUint32(12 + vendorBytes.length, 0, true);
    return [
      buildOggPage({ serial, sequence: this.sequence++, granule: 0n, flags: OGG_BEGINNING_OF_STREAM, packets: [head] }),
      buildOggPage({ serial, sequence: this.sequence++, granule: 0n, flags: 0, packets: [tags] }),
    ];
  }

  /** Pages holding these packets (each `samplesPerPacket` long at 48 kHz), headers first if not yet sent. */
  pages(packets: readonly Uint8Array[], samplesPerPacket: number): Uint8Array[] {
    return this.emit(packets, samplesPerPacket, undefined);
  }

  /**
   * The last pages: these packets, the final one flagged end of stream, with the granule position set to
   * pre-skip + `totalSamples` so that decoders trim the padding of the last frame.
   */
  end(packets: readonly Uint8Array[], samplesPerPacket: number, totalSamples: number): Uint8Array[] {
    if (packets.length === 0) throw new RangeError('the end-of-stream page needs at least one packet');
    return this.emit(packets, samplesPerPacket, this.options.preSkip + totalSamples);
  }

  private emit(packets: readonly Uint8Array[], samplesPerPacket: number, finalGranule: number | undefined): Uint8Array[] {
    if (this.ended) throw new Error('Ogg Opus stream already ended');
    const out = this.headers();
    let index = 0;
    while (index < packets.length) {
      const group: Uint8Array[] = [];
      let segments = 0;
      while (
        index < packets.length &&
        group.length < this.options.maxPacketsPerPage &&
        segments + lacingSegments(packets[index]!.length) <= MAX_SEGMENTS_PER_PAGE
      ) {
        segments += lacingSegments(packets[index]!.length);
        group.push(packets[index++]!);
      }
      if (group.length === 0) throw new RangeError(`an Opus packet of ${packets[index]!.length} bytes does not fit an Ogg page`);
      this.granule += group.length * samplesPerPacket;
      const last = index === packets.length && finalGranule !== undefined;
      const granule = last ? Math.min(finalGranule, this.granule) : this.granule;
      out.push(
        buildOggPage({
          serial: this.options.serial,
          sequence: this.sequence++,
          granule: BigInt(granule),
          flags: last ? OGG_END_OF_STREAM : 0,
          packets: group,
        }),
      );
    }
    if (finalGranule !== undefined) this.ended = true;
    return out;
  }
}

function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0) & 0x7f);
}
