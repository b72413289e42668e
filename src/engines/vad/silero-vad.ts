import type { VoiceActivityDetector } from '../types.js';
import { SileroPool } from './silero-pool.js';
import { onnxRuntime, type SileroInference } from './silero-session.js';

/**
 * Silero v5's windows (32 ms) at the rates it scores: 512 samples at 16 kHz, 256 at 8 kHz (a phone line, not
 * resampled). It sees the last `context` samples of the previous window in front of each new one; without them
 * it hears no speech.
 */
const windows: ReadonlyMap<number, { frame: number; context: number }> = new Map([
  [16000, { frame: 512, context: 64 }],
  [8000, { frame: 256, context: 32 }],
]);
const frameMs = 32;
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
  /**
   * Once `settleFrames` frames in a row were quieter than this (RMS, dBFS) and scored as silence, the next quiet
   * frames are scored 0 without running the model, and leave its settled state as it was: a phone line's quiet
   * between answers costs no inference. -Infinity (the default) runs the model on every frame. At -55 the
   * decisions on the human fixtures stay within 1 % of the model's on every frame (test/engines/engines-vad-batch.test.ts),
   * but the in-process recogniser heard the 8 kHz booking call worse (test/agent/agent-asr-per-call.test.ts), so it is
   * opt-in here, or for every detector of the process with SHOAL_VAD_QUIET_BELOW_DBFS (`quietBelowFromEnv`); the
   * agent stack turns it on (`providerQuietBelowDbfs`) when a streaming provider recognises.
   */
  quietBelowDbfs: number;
  /** Quiet frames in a row, scored as silence, before quiet frames skip the model. */
  settleFrames: number;
}

export const defaults: SileroVadOptions = { resetAfterSilenceMs: 3000, silenceProbability: 0.15, quietBelowDbfs: -Infinity, settleFrames: 8 };

/**
 * The quiet gate when a streaming provider recognises (Deepgram): the provider hears each utterance whole and finds
 * its own end of speech, and the gate's onsets and ends on the human fixtures are within two frames of Silero's on
 * every frame, so a call's quiet stretches need not cost an inference each.
 */
export const providerQuietBelowDbfs = -55;

/**
 * `quietBelowDbfs` when a detector is not given one: SHOAL_VAD_QUIET_BELOW_DBFS (say -55; `off` scores every
 * frame), else `fallback` (-Infinity unless the caller knows better).
 */
export function quietBelowFromEnv(env: NodeJS.ProcessEnv = process.env, fallback = defaults.quietBelowDbfs): number {
  const configured = env['SHOAL_VAD_QUIET_BELOW_DBFS']?.trim();
  if (configured === undefined || configured === '') return fallback;
  if (configured === 'off') return -Infinity;
  const dbfs = Number(configured);
  if (!Number.isFinite(dbfs) || dbfs >= 0) {
    throw new RangeError(`SHOAL_VAD_QUIET_BELOW_DBFS must be a level below 0 dBFS (say -55) or off, got "${configured}"; off scores every frame`);
  }
  return dbfs;
}

/** A frame that is not one window of Silero (512 samples at 16 kHz, 256 at 8 kHz), or at another rate. */
export class VadFrameSizeError extends RangeError {
  override readonly name = 'VadFrameSizeError';
}

/** Where a detector's inference runs: by default a VAD worker thread (SileroPool); `sileroInference()` runs it in this thread. */
export type SileroRunner = SileroInference & { release?(): void };

/**
 * Silero v5 speech probability per 32 ms frame, at 16 or 8 kHz; keeps its recurrent state per instance (one per call). The
 * inference runs on a VAD worker thread unless a runner is given (e.g. `new SileroVad(sileroInference())`).
 */
export class SileroVad implements VoiceActivityDetector {
  readonly frameSamples = windows.get(16000)!.frame;
  private state: Float32Array = new Float32Array(stateSize);
  /** The rate of the frames scored so far; a frame at another rate starts the detector afresh. */
  private sampleRate = 16000;
  private input = new Float32Array(windows.get(16000)!.context + this.frameSamples);
  private queue: Promise<unknown> = Promise.resolve();
  private released = false;
  private generation = 0;
  private readonly runner: SileroRunner;
  private readonly resetAfterFrames: number;
  private readonly silenceProbability: number;
  /** Frames quieter than this (RMS, dBFS) may skip the model: `SileroVadOptions.quietBelowDbfs`. */
  readonly quietBelowDbfs: number;
  /** Mean squared sample (16-bit) below which a frame is quiet. */
  private readonly quietPower: number;
  private silentFrames = 0;
  /** Quiet frames in a row that scored as silence. */
  private settledFrames = 0;
  private readonly settleFrames: number;

  constructor(runner?: SileroRunner, options: Partial<SileroVadOptions> = {}) {
    onnxRuntime(); // says what to install, at once, when onnxruntime-node is missing
    const o = { ...defaults, quietBelowDbfs: quietBelowFromEnv(), ...options };
    this.runner = runner ?? SileroPool.shared().channel();
    this.resetAfterFrames = Math.round(o.resetAfterSilenceMs / frameMs);
    this.silenceProbability = o.silenceProbability;
    this.quietBelowDbfs = o.quietBelowDbfs;
    this.quietPower = (32768 * 10 ** (o.quietBelowDbfs / 20)) ** 2;
    this.settleFrames = o.settleFrames;
    // A failed model load surfaces on the first probability() call.
    this.runner.ready.catch(() => undefined);
  }

  /** Resolves once the model is loaded where this detector runs. */
  async ready(): Promise<this> {
    await this.runner.ready;
    return this;
  }

  /** 512 at 16 kHz, 256 at 8 kHz; undefined at other rates. */
  frameSamplesAt(sampleRate: number): number | undefined {
    return windows.get(sampleRate)?.frame;
  }

  probability(frame: Int16Array, sampleRate = 16000): Promise<number> {
    if (this.released) return Promise.reject(new Error('voice activity detector was released'));
    const expected = windows.get(sampleRate)?.frame;
    if (frame.length !== expected) {
      const sizes = [...windows].map(([rate, w]) => `${w.frame} samples at ${rate / 1000} kHz`).join(' or ');
      return Promise.reject(new VadFrameSizeError(`VAD frames are ${sizes}, got ${frame.length} at ${sampleRate} Hz`));
    }
    // Calls are chained so each frame sees the state the previous one left, even when callers do not await.
    const result = this.queue.then(() => this.infer(frame, sampleRate));
    this.queue = result.catch(() => undefined);
    return result;
  }

  reset(): void {
    this.generation++;
    this.state = new Float32Array(stateSize);
    this.input.fill(0);
    this.silentFrames = 0;
    this.settledFrames = 0;
  }

  release(): void {
    if (!this.released) this.runner.release?.();
    this.released = true;
    this.reset();
  }

  private async infer(frame: Int16Array, sampleRate: number): Promise<number> {
    if (sampleRate !== this.sampleRate) {
      this.sampleRate = sampleRate;
      this.input = new Float32Array(windows.get(sampleRate)!.context + frame.length);
      this.reset();
    }
    const generation = this.generation;
    await this.runner.ready;
    const input = this.input;
    const context = input.length - frame.length;
    let energy = 0;
    for (let i = 0; i < frame.length; i++) {
      const sample = frame[i]!;
      energy += sample * sample;
      input[context + i] = sample / 32768;
    }
    const quiet = energy < this.quietPower * frame.length;
    const step = quiet && this.settledFrames >= this.settleFrames ? undefined : input.slice();
    input.copyWithin(0, frame.length);
    if (!step) {
      if (this.afterFrame(0)) this.state = new Float32Array(stateSize);
      return 0;
    }
    // The state may be moved to a worker; a reset meanwhile has already replaced it.
    let out;
    try {
      out = await this.runner.run(step, this.state, sampleRate);
    } catch (error) {
      if (generation === this.generation) this.state = new Float32Array(stateSize);
      throw error;
    }
    if (generation === this.generation) {
      this.settledFrames = quiet && out.probability < this.silenceProbability ? this.settledFrames + 1 : 0;
      this.state = this.afterFrame(out.probability) ? new Float32Array(stateSize) : out.state;
    }
    return out.probability;
  }

  /** Counts frames without speech; true when the state should start afresh. */
  private afterFrame(probability: number): boolean {
    this.silentFrames = probability < this.silenceProbability ? this.silentFrames + 1 : 0;
    if (this.resetAfterFrames <= 0 || this.silentFrames < this.resetAfterFrames) return false;
    this.silentFrames = 0;
    return true;
  }
}
