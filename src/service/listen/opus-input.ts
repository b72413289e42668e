import { concatSamples, OpusDemuxer, opusPacketSamples, OpusStreamDecoder } from '../../audio/index.js';

/** An Ogg or WebM Opus stream arriving in pieces, decoded packet by packet at the recognizer's 16 kHz. */
export class OpusInput {
  private readonly demuxer: OpusDemuxer;
  private decoder: OpusStreamDecoder | undefined;
  private queued: Uint8Array[] = [];
  /** 48 kHz samples of the packets taken and not yet decoded. */
  private queuedSamples = 0;
  private decodedSamples = 0;

  constructor(maxPacketBytes: number) {
    this.demuxer = new OpusDemuxer(maxPacketBytes);
  }

  /** Audio decoded so far, in ms (by the packets' own lengths, before the pre-skip is dropped). */
  get decodedMs(): number {
    return this.decodedSamples / 48;
  }

  /** Reads the packets `bytes` complete; returns the ms of audio taken and not yet decoded. */
  take(bytes: Uint8Array): number {
    const { head, packets } = this.demuxer.push(bytes);
    if (head) this.decoder = new OpusStreamDecoder(head, 16000);
    for (const packet of packets) {
      this.queued.push(packet);
      this.queuedSamples += opusPacketSamples(packet);
    }
    return this.queuedSamples / 48;
  }

  decode(): Int16Array {
    const decoder = this.decoder;
    if (!decoder || this.queued.length === 0) return new Int16Array(0);
    const parts = this.queued.map((packet) => decoder.decode(packet));
    this.decodedSamples += this.queuedSamples;
    this.queued = [];
    this.queuedSamples = 0;
    return concatSamples(parts);
  }

  close(): void {
    this.decoder?.close();
  }
}
