import { gatedLoudnessDb, linearToDb, normalizeLoudness, peak } from '../../audio/index.js';

/** Thresholds of the per-sample quality check and settings of the enhancement applied to stored samples. */
export const defaults = {
  /** Shorter samples fail: too little speech to take a voice from. */
  minDurationMs: 3_000,
  /** Quieter samples (gated loudness, dBFS) fail. */
  minLoudnessDb: -45,
  /** A sample whose share of samples at full scale exceeds this fails as clipped. */
  maxClippedRatio: 0.001,
  /** Full scale, in 16-bit sample units, counted as clipped. */
  clipLevel: 32_700,
  /** Noise gate: 20 ms windows this many dB below the loud part are attenuated. */
  gateBelowLoudnessDb: 30,
  gateAttenuationDb: 20,
  gateWindowMs: 20,
};

export interface SampleMeasures {
  duration_ms: number;
  loudness_db: number;
  peak_db: number;
  clipped_ratio: number;
  sample_rate: number;
}

export function measureSample(samples: Int16Array, sampleRate: number): SampleMeasures {
  let clipped = 0;
  for (let i = 0; i < samples.length; i++) if (Math.abs(samples[i]!) >= defaults.clipLevel) clipped++;
  const loudness = gatedLoudnessDb(samples, sampleRate);
  const peakDb = linearToDb(peak(samples));
  return {
    duration_ms: Math.round((samples.length * 1000) / sampleRate),
    loudness_db: Number.isFinite(loudness) ? round1(loudness) : -120,
    peak_db: Number.isFinite(peakDb) ? round1(peakDb) : -120,
    clipped_ratio: samples.length ? Number((clipped / samples.length).toFixed(5)) : 0,
    sample_rate: sampleRate,
  };
}

/** The problems that fail a sample, in words a user can act on; empty when it passes. */
export function qualityProblems(measures: SampleMeasures): string[] {
  const problems: string[] = [];
  if (measures.duration_ms < defaults.minDurationMs) {
    problems.push(`too short: ${(measures.duration_ms / 1000).toFixed(1)} s, upload at least ${defaults.minDurationMs / 1000} s of speech`);
  }
  if (measures.loudness_db < defaults.minLoudnessDb) {
    problems.push(`too quiet: ${measures.loudness_db} dBFS, record at least ${defaults.minLoudnessDb} dBFS`);
  }
  if (measures.clipped_ratio > defaults.maxClippedRatio) {
    problems.push(`clipped: ${(measures.clipped_ratio * 100).toFixed(2)}% of samples at full scale, record with less gain`);
  }
  return problems;
}

/**
 * Cleans a sample for storage: removes DC offset, attenuates the quiet windows between words (a simple
 * noise gate), then brings the loudness to -20 dBFS with the peak kept under -1 dBFS.
 */
export function enhanceSample(samples: Int16Array, sampleRate: number): Int16Array {
  if (samples.length === 0) return samples.slice();
  let mean = 0;
  for (let i = 0; i < samples.length; i++) mean += samples[i]!;
  mean /= samples.length;
  const centred = new Float64Array(samples.length);
  for (let i = 0; i < samples.length; i++) centred[i] = samples[i]! - mean;
  const loudness = gatedLoudnessDb(Int16Array.from(centred, (v) => Math.max(-32768, Math.min(32767, Math.round(v)))), sampleRate);
  if (Number.isFinite(loudness)) {
    const threshold = Math.pow(10, (loudness - defaults.gateBelowLoudnessDb) / 20) * 32768;
    const gain = Math.pow(10, -defaults.gateAttenuationDb / 20);
    const window = Math.max(1, Math.round((defaults.gateWindowMs * sampleRate) / 1000));
    for (let start = 0; start < centred.length; start += window) {
      const end = Math.min(centred.length, start + window);
      let power = 0;
      for (let i = start; i < end; i++) power += centred[i]! * centred[i]!;
      if (Math.sqrt(power / (end - start)) >= threshold) continue;
      for (let i = start; i < end; i++) centred[i] = centred[i]! * gain;
    }
  }
  const gated = Int16Array.from(centred, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
  return normalizeLoudness(gated, sampleRate).samples;
}

const scripts: [RegExp, string][] = [
  [/[\u3040-\u30ff]/, 'ja'],
  [/[\uac00-\ud7af]/, 'ko'],
  [/[\u4e00-\u9fff]/, 'zh'],
  [/[\u0400-\u04ff]/, 'ru'],
  [/[\u0600-\u06ff]/, 'ar'],
];
const englishWords = /\b(the|and|is|are|you|i|to|of|a|in|it|that|this|hello|my|for|with|what|yes|no)\b/i;

/** A best guess of a text's language from its script (and common words for Latin script); `unknown` otherwise. */
export function guessLanguage(text: string): string {
  for (const [pattern, language] of scripts) if (pattern.test(text)) return language;
  return englishWords.test(text) ? 'en' : 'unknown';
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
