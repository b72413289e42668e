import { seededRandom } from '../audio/seeded-random.js';
import type { Conditions } from './schema.js';

/** A caller frame on its way to the agent: when it arrives, and what is left of it. */
export interface SentFrame {
  arriveMs: number;
  samples: Int16Array;
}

/** A lost frame's concealment: the last pitch period of the last `historyMs` repeated, fading by `fadePerMs` after `holdMs` (silence at 60 ms). */
export const concealment = { holdMs: 10, fadePerMs: 0.02, historyMs: 40 };

/**
 * The line's conditions on the caller's frames: white noise at an SNR against the caller's speech level, frames
 * lost and concealed as a receiver's packet-loss concealment does (after G.711 Appendix I: the last pitch
 * period repeated, full for 10 ms, then fading 20 % per 10 ms to silence at 60 ms), and late arrivals (order kept).
 */
export class LineConditions {
  private readonly random: () => number;
  private readonly noiseRms: number;
  private lastArrivalMs = 0;
  /** The last audio carried (not concealed), up to `historyMs`: what a lost frame is concealed from. */
  private history = new Int16Array(0);
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
      this.remember(out, frameMs);
      this.concealedMs = 0;
    }
    const delayMs = (this.conditions.jitter_ms ?? 0) > 0 ? this.random() * this.conditions.jitter_ms! : 0;
    const arriveMs = Math.max(this.lastArrivalMs, sentMs + frameMs + delayMs);
    this.lastArrivalMs = arriveMs;
    return { arriveMs, samples: out };
  }

  private remember(samples: Int16Array, frameMs: number): void {
    const keep = Math.round((samples.length * concealment.historyMs) / frameMs);
    const joined = new Int16Array(this.history.length + samples.length);
    joined.set(this.history);
    joined.set(samples, this.history.length);
    this.history = joined.subarray(Math.max(0, joined.length - keep));
  }

  private conceal(length: number, frameMs: number): Int16Array {
    const out = concealFrame(this.history.length ? this.history : undefined, length, this.concealedMs, frameMs);
    this.concealedMs += frameMs;
    return out;
  }

  private gaussian(): number {
    const u = Math.max(this.random(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.random());
  }
}

/**
 * What a receiver plays for a lost frame `concealedMs` into a run of losses: the last pitch period of `history`
 * (the audio it had before the loss, at `sampleRate`) repeated, faded as `concealment` says.
 */
export function concealFrame(history: Int16Array | undefined, length: number, concealedMs: number, frameMs: number, sampleRate = (length * 1000) / frameMs): Int16Array {
  const out = new Int16Array(length);
  if (!history || history.length === 0) return out;
  const period = pitchPeriod(history, sampleRate);
  const cycle = history.subarray(history.length - period);
  const offset = Math.round((concealedMs * sampleRate) / 1000);
  for (let i = 0; i < length; i++) {
    const atMs = concealedMs + (i * frameMs) / length;
    const gain = Math.max(0, 1 - Math.max(0, atMs - concealment.holdMs) * concealment.fadePerMs);
    out[i] = Math.round(cycle[(offset + i) % period]! * gain);
  }
  return out;
}

/** The pitch period (2.5-15 ms) that best repeats the end of `history`, in samples; the whole of it when too short. */
function pitchPeriod(history: Int16Array, sampleRate: number): number {
  const shortest = Math.round(sampleRate * 0.0025);
  const longest = Math.round(sampleRate * 0.015);
  const window = Math.round(sampleRate * 0.01);
  if (history.length < longest + window) return history.length;
  const end = history.length;
  let best = longest;
  let bestScore = -Infinity;
  for (let lag = shortest; lag <= longest; lag++) {
    let dot = 0;
    let energy = 0;
    for (let i = end - window; i < end; i++) {
      const earlier = history[i - lag]!;
      dot += history[i]! * earlier;
      energy += earlier * earlier;
    }
    const score = energy > 0 ? dot / Math.sqrt(energy) : -Infinity;
    if (score > bestScore) {
      bestScore = score;
      best = lag;
    }
  }
  return best;
}

function clamp(value: number): number {
  return Math.max(-32768, Math.min(32767, Math.round(value)));
}
