import type { SampleMeasures } from '../../audio/index.js';

/** Thresholds of the per-sample quality check (measures and enhancement: src/audio/voice-sample.ts). */
export const defaults = {
  /** Shorter samples fail: too little speech to take a voice from. */
  minDurationMs: 3_000,
  /** Quieter samples (gated loudness, dBFS) fail. */
  minLoudnessDb: -45,
  /** A sample whose share of samples at full scale exceeds this fails as clipped. */
  maxClippedRatio: 0.001,
};

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
