import { applyGainDb, linearToDb, peak } from './pcm.js';

export interface LoudnessOptions {
  /** Block length over which power is measured, in ms. */
  blockMs: number;
  /** Blocks quieter than this (dBFS) are never counted as programme. */
  absoluteGateDb: number;
  /** Blocks this many dB below the mean of the blocks above the absolute gate are dropped too. */
  relativeGateDb: number;
}

export interface NormalizeOptions extends LoudnessOptions {
  /** Level the gated loudness is brought to, in dBFS. */
  targetDb: number;
  /** The gain is limited so that the peak stays at or below this level (dBFS), so nothing clips. */
  peakCeilingDb: number;
}

export const defaults: NormalizeOptions = {
  blockMs: 400,
  absoluteGateDb: -70,
  relativeGateDb: -10,
  targetDb: -20,
  peakCeilingDb: -1,
};

/**
 * Gated loudness in dBFS, in the manner of ITU-R BS.1770 but without K-weighting: mean power of the
 * 400 ms blocks (75% overlap) that pass an absolute and a relative gate. Silence gives -Infinity.
 */
export function gatedLoudnessDb(
  samples: Int16Array,
  sampleRate: number,
  options: Partial<LoudnessOptions> = {},
): number {
  const { blockMs, absoluteGateDb, relativeGateDb } = { ...defaults, ...options };
  const blockLength = Math.max(1, Math.round((blockMs * sampleRate) / 1000));
  const hop = Math.max(1, blockLength >> 2);
  const powers: number[] = [];
  if (samples.length <= blockLength) {
    powers.push(meanPower(samples, 0, samples.length));
  } else {
    for (let start = 0; start + blockLength <= samples.length; start += hop) {
      powers.push(meanPower(samples, start, start + blockLength));
    }
  }
  const absoluteGate = Math.pow(10, absoluteGateDb / 10);
  const loud = powers.filter((p) => p > absoluteGate);
  if (loud.length === 0) return -Infinity;
  const relativeGate = average(loud) * Math.pow(10, relativeGateDb / 10);
  const kept = loud.filter((p) => p > relativeGate);
  return 10 * Math.log10(average(kept.length > 0 ? kept : loud));
}

/** Returns a copy brought to `targetDb` gated loudness, with the gain capped so the peak stays under the ceiling. */
export function normalizeLoudness(
  samples: Int16Array,
  sampleRate: number,
  options: Partial<NormalizeOptions> = {},
): { samples: Int16Array; gainDb: number } {
  const settings = { ...defaults, ...options };
  const loudness = gatedLoudnessDb(samples, sampleRate, settings);
  if (!Number.isFinite(loudness)) return { samples: samples.slice(), gainDb: 0 };
  const peakDb = linearToDb(peak(samples));
  const gainDb = Math.min(settings.targetDb - loudness, settings.peakCeilingDb - peakDb);
  return { samples: applyGainDb(samples, gainDb), gainDb };
}

function meanPower(samples: Int16Array, start: number, end: number): number {
  if (end <= start) return 0;
  let sum = 0;
  for (let i = start; i < end; i++) {
    const s = samples[i]! / 32768;
    sum += s * s;
  }
  return sum / (end - start);
}

function average(values: number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}
