import { Mp3Encoder } from '@breezystack/lamejs';

/**
 * Streaming MP3 encoder (LAME, mono, constant bitrate). Each `write` returns the frames completed so far
 * (possibly none), `end` the rest.
 */
export class Mp3StreamEncoder {
  private readonly encoder: Mp3Encoder;
  private ended = false;

  constructor(
    readonly sampleRate: number,
    readonly bitrateKbps: number,
  ) {
    this.encoder = new Mp3Encoder(1, sampleRate, bitrateKbps);
  }

  write(pcm: Int16Array): Uint8Array {
    if (this.ended) throw new Error('MP3 encoder already ended');
    if (pcm.length === 0) return new Uint8Array(0);
    return asBytes(this.encoder.encodeBuffer(pcm));
  }

  end(): Uint8Array {
    if (this.ended) throw new Error('MP3 encoder already ended');
    this.ended = true;
    return asBytes(this.encoder.flush());
  }
}

/** lamejs hands back fresh Int8Arrays (its typings say Uint8Array); view the same memory as bytes. */
function asBytes(encoded: ArrayBufferView): Uint8Array {
  return new Uint8Array(encoded.buffer, encoded.byteOffset, encoded.byteLength);
}
