import { measureSpeakingRate } from './speaking-rate.js';
import { pitchFrameMs, trackPitch } from './pitch.js';

/** What a reference recording says about its speaker, for picking the nearest synthetic voice. */
export interface VoiceAnalysis {
  /** Median F0 over voiced frames, Hz (robust to octave errors); 0 when nothing was voiced. */
  pitchHz: number;
  /** Mean F0 over voiced frames, Hz. */
  meanPitchHz: number;
  /** Voiced time, ms. */
  voicedMs: number;
  /** Syllable nuclei per second of speech. */
  syllablesPerSecond: number;
  durationMs: number;
}

/** Too little voiced audio to say anything about the voice. */
export class ReferenceTooShortError extends Error {
  readonly status = 400;
  override readonly name = 'ReferenceTooShortError';
}

const minVoicedMs = 300;

/** Estimates pitch and speaking rate of speech (16-bit mono PCM, 16 kHz unless given). */
export function analyzeVoice(pcm: Int16Array, sampleRate = 16000): VoiceAnalysis {
  const f0 = trackPitch(pcm, sampleRate);
  const voiced = Array.from(f0).filter((v) => v > 0).sort((a, b) => a - b);
  const voicedMs = voiced.length * pitchFrameMs;
  if (voicedMs < minVoicedMs) {
    throw new ReferenceTooShortError(
      `reference audio has ${voicedMs} ms of voiced speech; at least ${minVoicedMs} ms is needed to estimate the voice`,
    );
  }
  const rate = measureSpeakingRate(pcm, sampleRate, f0);
  return {
    pitchHz: round(voiced[Math.floor(voiced.length / 2)]!),
    meanPitchHz: round(voiced.reduce((s, v) => s + v, 0) / voiced.length),
    voicedMs,
    syllablesPerSecond: round(rate.syllablesPerSecond),
    durationMs: Math.round((pcm.length / sampleRate) * 1000),
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
