import { decodeMuLaw, type AudioFrame } from '../src/audio/index.js';
import type { SpokenWord } from '../src/agent/index.js';

/** How a synthesiser's audio comes on the wire: 16-bit little-endian PCM, or G.711 mu-law (a phone line's own). */
export type WireAudio = 'pcm16' | 'mulaw';

/**
 * Turns a provider's audio bytes, as they come in pieces, into frames timed from the reply's start. A 16-bit
 * sample split across two pieces is carried over to the next one.
 */
export class WireAudioFrames {
  private carry: number | undefined;
  private samplesOut = 0;

  constructor(
    readonly sampleRate: number,
    private readonly encoding: WireAudio,
  ) {}

  /** Milliseconds of audio turned into frames so far. */
  get durationMs(): number {
    return (this.samplesOut * 1000) / this.sampleRate;
  }

  /** The frame holding `bytes` (with any byte carried over), or undefined when they hold no whole sample. */
  push(bytes: Uint8Array): AudioFrame | undefined {
    const samples = this.encoding === 'mulaw' ? decodeMuLaw(bytes) : this.pcm(bytes);
    if (samples.length === 0) return undefined;
    const frame: AudioFrame = { samples, sampleRate: this.sampleRate, timestampMs: this.durationMs };
    this.samplesOut += samples.length;
    return frame;
  }

  private pcm(bytes: Uint8Array): Int16Array {
    const total = bytes.length + (this.carry === undefined ? 0 : 1);
    const samples = new Int16Array(Math.floor(total / 2));
    let byteIndex = 0;
    const byteAt = (index: number): number => (this.carry === undefined ? bytes[index]! : index === 0 ? this.carry : bytes[index - 1]!);
    for (let i = 0; i < samples.length; i++, byteIndex += 2) {
      const value = byteAt(byteIndex) | (byteAt(byteIndex + 1) << 8);
      samples[i] = value >= 0x8000 ? value - 0x10000 : value;
    }
    this.carry = total % 2 === 1 ? byteAt(total - 1) : undefined;
    return samples;
  }
}

/**
 * Words from a provider's character timings (ElevenLabs' alignment), as they come in pieces: a word is given once
 * the space after it (or the end of the reply) has arrived, timed from the reply's start.
 */
export class CharacterWords {
  private word = '';
  private startMs = 0;
  private endMs = 0;

  /** The words completed by these characters; `offsetMs` is where the piece's times start in the reply. */
  push(chars: readonly string[], startsMs: readonly number[], durationsMs: readonly number[], offsetMs: number): SpokenWord[] {
    const words: SpokenWord[] = [];
    chars.forEach((char, index) => {
      const start = offsetMs + (startsMs[index] ?? 0);
      const end = start + (durationsMs[index] ?? 0);
      if (/\s/.test(char)) {
        const done = this.take();
        if (done) words.push(done);
        return;
      }
      if (!this.word) this.startMs = start;
      this.word += char;
      this.endMs = end;
    });
    return words;
  }

  /** The last word, at the end of the reply. */
  end(): SpokenWord[] {
    const done = this.take();
    return done ? [done] : [];
  }

  private take(): SpokenWord | undefined {
    if (!this.word) return undefined;
    const word = { word: this.word, startMs: this.startMs, endMs: this.endMs };
    this.word = '';
    return word;
  }
}

/** Cartesia's word timestamps (seconds from the context's start) as `SpokenWord`s. */
export function timedWords(words: readonly string[], startsSeconds: readonly number[], endsSeconds: readonly number[]): SpokenWord[] {
  return words.map((word, index) => ({ word, startMs: Math.round((startsSeconds[index] ?? 0) * 1000), endMs: Math.round((endsSeconds[index] ?? 0) * 1000) }));
}

/** Base64 text as bytes. */
export function base64Bytes(data: string): Uint8Array {
  const buffer = Buffer.from(data, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}
