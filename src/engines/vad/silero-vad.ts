import type { VoiceActivityDetector } from '../types.js';
import { onnxRuntime, sileroSession } from './silero-session.js';

const sampleRate = 16000;
const frameSamples = 512;
/** Silero v5 sees the last 64 samples of the previous frame in front of each new one; without them it hears no speech. */
const contextSamples = 64;
const stateSize = 2 * 1 * 128;

/** How the detector keeps its recurrent state. Durations in ms. */
export interface SileroVadOptions {
  /**
   * After this much audio without speech the recurrent state starts afresh. Over long non-speech (line
   * noise between a caller's answers) the state drifts until a short word is no longer heard: a real "yes"
   * (Speech Commands, dev_01) scored 0.24 after 11 s of -70 dBFS noise in a call and 0.9 with a fresh
   * state. 3000 ms was chosen on the IVR calls of test/fixtures/human-calls (tuning clips); 0 never resets.
   */
  resetAfterSilenceMs: number;
  /** Frames scoring below this count as without speech for `resetAfterSilenceMs`. */
  silenceProbability: number;
}

export const defaults: SileroVadOptions = { resetAfterSilenceMs: 3000, silenceProbability: 0.15 };

/** A frame that is not 512 samples of 16 kHz audio. */
export class VadFrameSizeError extends RangeError {
  override readonly name = 'VadFrameSizeError';
}

/** Silero v5 speech probability per 32 ms frame; keeps its recurrent state per instance (one per call). */
export class SileroVad implements VoiceActivityDetector {
  readonly frameSamples = frameSamples;
  private state: Float32Array = new Float32Array(stateSize);
  private readonly input = new Float32Array(contextSamples + frameSamples);
  private readonly ort = onnxRuntime();
  private readonly rate = new this.ort.Tensor('int64', BigInt64Array.from([BigInt(sampleRate)]), []);
  private queue: Promise<unknown> = Promise.resolve();
  private released = false;
  private generation = 0;
  private readonly resetAfterFrames: number;
  private readonly silenceProbability: number;
  private silentFrames = 0;

  constructor(
    private readonly session = sileroSession(),
    options: Partial<SileroVadOptions> = {},
  ) {
    const o = { ...defaults, ...options };
    this.resetAfterFrames = Math.round((o.resetAfterSilenceMs * sampleRate) / 1000 / frameSamples);
    this.silenceProbability = o.silenceProbability;
    // A failed model load surfaces on the first probability() call.
    this.session.catch(() => undefined);
  }

  /** Resolves once the shared model is loaded. */
  async ready(): Promise<this> {
    await this.session;
    return this;
  }

  probability(frame16k: Int16Array): Promise<number> {
    if (this.released) return Promise.reject(new Error('voice activity detector was released'));
    if (frame16k.length !== frameSamples) {
      return Promise.reject(new VadFrameSizeError(`VAD frames are ${frameSamples} samples at 16 kHz, got ${frame16k.length}`));
    }
    // Calls are chained so each frame sees the state the previous one left, even when callers do not await.
    const result = this.queue.then(() => this.infer(frame16k));
    this.queue = result.catch(() => undefined);
    return result;
  }

  reset(): void {
    this.generation++;
    this.state = new Float32Array(stateSize);
    this.input.fill(0, 0, contextSamples);
    this.silentFrames = 0;
  }

  release(): void {
    this.released = true;
    this.reset();
  }

  private async infer(frame: Int16Array): Promise<number> {
    const generation = this.generation;
    const session = await this.session;
    const input = this.input;
    for (let i = 0; i < frameSamples; i++) input[contextSamples + i] = frame[i]! / 32768;
    const feeds = {
      input: new this.ort.Tensor('float32', input.slice(), [1, contextSamples + frameSamples]),
      state: new this.ort.Tensor('float32', this.state, [2, 1, 128]),
      sr: this.rate,
    };
    input.copyWithin(0, frameSamples, frameSamples + contextSamples);
    const out = await session.run(feeds);
    const probability = (out.output!.data as Float32Array)[0]!;
    if (generation === this.generation) this.state = this.afterFrame(probability) ? new Float32Array(stateSize) : (out.stateN!.data as Float32Array);
    return probability;
  }

  /** Counts frames without speech; true when the state should start afresh. */
  private afterFrame(probability: number): boolean {
    this.silentFrames = probability < this.silenceProbability ? this.silentFrames + 1 : 0;
    if (this.resetAfterFrames <= 0 || this.silentFrames < this.resetAfterFrames) return false;
    this.silentFrames = 0;
    return true;
  }
}
