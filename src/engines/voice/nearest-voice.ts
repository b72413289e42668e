import { fliteVoices } from '../flite/voices.js';
import type { FliteVoice, VoiceSettings } from '../types.js';
import type { VoiceAnalysis } from './analyze.js';

/** Rules for mapping a reference voice onto flite. */
export interface NearestVoiceOptions {
  /** Median F0 at or above which a voice is rendered with the female voice. */
  femaleAboveHz: number;
  /** A male reference within this fraction of rms's own pitch uses rms (best quality, fixed pitch). */
  rmsTolerance: number;
  minRate: number;
  maxRate: number;
}

export const defaults: NearestVoiceOptions = { femaleAboveHz: 150, rmsTolerance: 0.12, minRate: 0.5, maxRate: 2 };

/**
 * The flite voice, pitch and rate closest to an analysed reference. This approximates a speaker's pitch
 * and pace; it is not a clone of their timbre.
 */
export function nearestVoice(analysis: VoiceAnalysis, options: Partial<NearestVoiceOptions> = {}): VoiceSettings {
  const { femaleAboveHz, rmsTolerance, minRate, maxRate } = { ...defaults, ...options };
  const pitch = analysis.pitchHz;
  let voice: FliteVoice;
  if (pitch >= femaleAboveHz) voice = 'slt';
  else if (Math.abs(pitch - fliteVoices.rms.defaultPitchHz) / fliteVoices.rms.defaultPitchHz <= rmsTolerance) voice = 'rms';
  else voice = 'awb';
  const info = fliteVoices[voice];
  const rate = analysis.syllablesPerSecond > 0 ? analysis.syllablesPerSecond / info.syllablesPerSecond : 1;
  const settings: VoiceSettings = { voice, rate: round(Math.min(maxRate, Math.max(minRate, rate))) };
  if (info.pitchControl) settings.pitchHz = round(Math.min(400, Math.max(40, pitch - info.pitchBiasHz)));
  return settings;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
