import { seededRandom } from '../audio/seeded-random.js';
import type { Conditions } from './schema.js';

/** A caller frame on its way to the agent: when it arrives, and what is left of it. */
export interface SentFrame {
  arriveMs: number;
  samples: Int16Array;
}

/** A lost frame's concealment: the last frame again, fading by this share per ms after the first 10 ms (to silence at 60 ms). */
export const concealment = { holdMs: 10, fadePerMs: 0.02 };

/**
 * The line's conditions on the caller's frames: white noise at an SNR against the caller's speech level, frames
 * lost and concealed as a receiver's packet-loss concealment does (G.711 Appendix I's shape: the last audio
 * repeated, full for 10 ms, then fading 20 % per 10 ms to silence at 60 ms), and late arrivals (order kept).
 */
export class LineConditions {
  private readonly random: () => number;
  private readonly noiseRms: number;
  private lastArrivalMs = 0;
  private lastCarried: Int16Array | undefined;
  /** How long the frames lost in a row so far have been concealed, ms. */
  private concealedMs = 0;

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
    if (lost) out = this.conceal(samples.length, frameMs);
    else {
      this.lastCarried = out;
      this.concealedMs = 0;
    }
    const delayMs = (this.conditions.jitter_ms ?? 0) > 0 ? this.random() * this.conditions.jitter_ms! : 0;
    const arriveMs = Math.max(this.lastArrivalMs, sentMs + frameMs + delayMs);
    this.lastArrivalMs = arriveMs;
    return { arriveMs, samples: out };
  }

  private conceal(length: number, frameMs: number): Int16Array {
    const out = new Int16Array(length);
    const last = this.lastCarried;
    if (last) {
      for (let i = 0; i < length; i++) {
        const atMs = this.concealedMs + (i * frameMs) / length;
        const gain = Math.max(0, 1 - Math.max(0, atMs - concealment.holdMs) * concealment.fadePerMs);
        out[i] = Math.round((last[i % last.length] ?? 0) * gain);
      }
    }
    this.concealedMs += frameMs;
    return out;
  }

  private gaussian(): number {
    const u = Math.max(this.random(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.random());
  }
}

function clamp(value: number): number {
  return Math.max(-32768, Math.min(32767, Math.round(value)));
}
