import type { FliteVoice } from '../types.js';

export interface FliteVoiceInfo {
  voice: FliteVoice;
  sampleRate: number;
  gender: 'female' | 'male';
  description: string;
  /** The voice's own median F0 in Hz, measured on its output with analyzeVoice (bench/engines.ts prints it). */
  defaultPitchHz: number;
  /** Whether `int_f0_target_mean` moves this voice's pitch (rms ignores it). */
  pitchControl: boolean;
  /** Measured output F0 minus the requested target, Hz (flite lands a little under the target). */
  pitchBiasHz: number;
  /** Syllable nuclei per second at rate 1, measured with analyzeVoice on a reference paragraph. */
  syllablesPerSecond: number;
}

export const fliteVoices: Record<FliteVoice, FliteVoiceInfo> = {
  slt: { voice: 'slt', sampleRate: 16000, gender: 'female', description: 'US English, female', defaultPitchHz: 166, pitchControl: true, pitchBiasHz: -6, syllablesPerSecond: 4.4 },
  rms: { voice: 'rms', sampleRate: 16000, gender: 'male', description: 'US English, male (fixed pitch)', defaultPitchHz: 99, pitchControl: false, pitchBiasHz: 0, syllablesPerSecond: 4.5 },
  awb: { voice: 'awb', sampleRate: 16000, gender: 'male', description: 'Scottish English, male', defaultPitchHz: 124, pitchControl: true, pitchBiasHz: -8, syllablesPerSecond: 5.2 },
  kal16: { voice: 'kal16', sampleRate: 16000, gender: 'male', description: 'US English, male, diphone', defaultPitchHz: 87, pitchControl: true, pitchBiasHz: -5, syllablesPerSecond: 4.5 },
  kal: { voice: 'kal', sampleRate: 8000, gender: 'male', description: 'US English, male, diphone, 8 kHz', defaultPitchHz: 86, pitchControl: true, pitchBiasHz: -5, syllablesPerSecond: 4.6 },
};

export function isFliteVoice(name: string): name is FliteVoice {
  return Object.hasOwn(fliteVoices, name);
}
