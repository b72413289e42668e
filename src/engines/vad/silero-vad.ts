import type { VoiceActivityDetector } from '../types.js';
import { SileroPool } from './silero-pool.js';
import { onnxRuntime, type SileroInference } from './silero-session.js';

const frameSamples = 512;
/** Silero v5 sees the last 64 samples of the previous frame in front of each new one; without them it hears no speech. */
const contextSamples = 64;
const stateSize = 2 * 1 * 128;

/** A frame that is not 512 samples of 16 kHz audio. */
export class VadFrameSizeError extends RangeError {
  override readonly name = 'VadFrameSizeError';
}

/** Where a detector's inference runs: by default a VAD worker thread (SileroPool); `sileroInference()` runs it in this thread. */
export type SileroRunner = SileroInference & { release?(): void };

/**
 * Silero v5 speech probability per 32 ms frame; keeps its recurrent state per instance (one per call). The
 * inference runs on a VAD worker thread unless a runner is given (e.g. `new SileroVad(sileroInference())`).
 */
export class SileroVad implements VoiceActivityDetector {
  readonly frameSamples = frameSamples;
  private state: Float32Array = new Float32Array(stateSize);
  private readonly input = new Float32Array(contextSamples + frameSamples);
  private queue: Promise<unknown> = Promise.resolve();
  private released = false;
  private generation = 0;
  private readonly runner: SileroRunner;

  constructor(runner?: SileroRunner) {
    onnxRuntime(); // says what to install, at once, when onnxruntime-node is missing
    this.runner = runner ?? SileroPool.shared().channel();
    // A failed model load surfaces on the first probability() call.
    this.runner.ready.catch(() => undefined);
  }

  /** Resolves once the model is loaded where this detector runs. */
  async ready(): Promise<this> {
    await this.runner.ready;
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
  }

  release(): void {
    if (!this.released) this.runner.release?.();
    this.released = true;
    this.reset();
  }

  private async infer(frame: Int16Array): Promise<number> {
    const generation = this.generation;
    await this.runner.ready;
    const input = this.input;
    for (let i = 0; i < frameSamples; i++) input[contextSamples + i] = frame[i]! / 32768;
    const step = input.slice();
    input.copyWithin(0, frameSamples, frameSamples + contextSamples);
    // The state may be moved to a worker; a reset meanwhile has already replaced it.
    let out;
    try {
      out = await this.runner.run(step, this.state);
    } catch (error) {
      if (generation === this.generation) this.state = new Float32Array(stateSize);
      throw error;
    }
    if (generation === this.generation) this.state = out.state;
    return out.probability;
  }
}
