import OpusScript from 'opusscript';
import { AudioFormatError } from './errors.js';
import { opusPacketSamples, type OpusHead } from './opus-packet.js';

/** The rate decoded audio comes out at: libopus decodes to it directly. */
export type OpusOutputRate = 8000 | 12000 | 16000 | 24000 | 48000;

const release = new FinalizationRegistry<OpusScript>((decoder) => decoder.delete());

/**
 * Decodes Opus packets one by one (libopus through opusscript) to mono 16-bit PCM at `rate`, dropping the
 * header's pre-skip from the start. Stereo is mixed down.
 */
export class OpusStreamDecoder {
  private readonly decoder: OpusScript;
  private skipLeft: number;
  private closed = false;

  constructor(
    private readonly head: OpusHead,
    readonly rate: OpusOutputRate,
  ) {
    this.decoder = new OpusScript(rate, head.channels);
    release.register(this, this.decoder, this);
    this.skipLeft = Math.round((head.preSkip * rate) / 48000);
  }

  /** One packet's audio; throws AudioFormatError for a packet libopus cannot decode. */
  decode(packet: Uint8Array): Int16Array {
    if (this.closed) throw new Error('Opus decoder already closed');
    if (opusPacketSamples(packet) === 0) return new Int16Array(0);
    let pcm: Buffer;
    try {
      pcm = this.decoder.decode(Buffer.from(packet.buffer, packet.byteOffset, packet.byteLength));
    } catch (error) {
      throw new AudioFormatError(`an Opus packet cannot be decoded: ${(error as Error).message}`);
    }
    const interleaved = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength / 2);
    let mono = this.head.channels === 1 ? interleaved.slice() : mixDown(interleaved);
    if (this.skipLeft > 0) {
      const skipped = Math.min(this.skipLeft, mono.length);
      this.skipLeft -= skipped;
      mono = mono.subarray(skipped);
    }
    return mono;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    release.unregister(this);
    this.decoder.delete();
  }
}

function mixDown(stereo: Int16Array): Int16Array {
  const mono = new Int16Array(stereo.length / 2);
  for (let i = 0; i < mono.length; i++) mono[i] = (stereo[2 * i]! + stereo[2 * i + 1]!) >> 1;
  return mono;
}
