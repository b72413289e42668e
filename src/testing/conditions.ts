import { seededRandom } from '../audio/seeded-random.js';
import type { Conditions } from './schema.js';

/** A caller frame on its way to the agent: when it arrives, and what is left of it. */
export interface SentFrame {
  arriveMs: number;
  samples: Int16Array;
}

/**
 * The line's conditions on the caller's frames: white noise at an SNR against the caller's speech level, frames
 * lost (heard as silence, as a jitter buffer without concealment plays them), and late arrivals (order kept).
 */
export class LineConditions {
  private readonly random: () => number;
  private readonly noiseRms: number;
  private lastArrivalMs = 0;

  constructor(
    private readonly conditions: Conditions,
    seed: number,
    speechRms: number,
  ) {
    this.random = seededRandom(seed);
    this.noiseRms = conditions.noise_db === undefined ? 0 : speechRms / 10 ** (conditions.noise_db / 20);
  }

  /** The frame the caller sends at `sentMs`, as the line carries it. */
  carry(samples: Int16Array, sentMs: number, frameMs: number): SentFrame {
    let out = samples;
    if (this.noiseRms > 0) {
      out = new Int16Array(samples.length);
      for (let i = 0; i < samples.length; i++) out[i] = clamp(samples[i]! + this.gaussian() * this.noiseRms);
    }
    const lost = (this.conditions.loss ?? 0) > 0 && this.random() < this.conditions.loss!;
    if (lost) out = new Int16Array(samples.length);
    const delayMs = (this.conditions.jitter_ms ?? 0) > 0 ? this.random() * this.conditions.jitter_ms! : 0;
    const arriveMs = Math.max(this.lastArrivalMs, sentMs + frameMs + delayMs);
    this.lastArrivalMs = arriveMs;
    return { arriveMs, samples: out };
  }

  private gaussian(): number {
    const u = Math.max(this.random(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.random());
  }
}

function clamp(value: number): number {
  return Math.max(-32768, Math.min(32767, Math.round(value)));
}
