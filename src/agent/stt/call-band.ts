import type { CallAudio } from '../contracts.js';

/** Telephone audio is sampled at 8 kHz (or less). */
const telephoneSampleRate = 8000;

/** Whether a call's audio came through a telephone network: an 8 kHz line, or a transport that says so. */
export function isTelephoneBand(call?: CallAudio): boolean {
  const rate = call?.callerSampleRate();
  return call?.telephoneBand?.() === true || (rate !== undefined && rate <= telephoneSampleRate);
}
