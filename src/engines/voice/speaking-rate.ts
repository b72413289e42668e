/**
 * Speaking rate as syllable nuclei per second of speech: peaks of the smoothed energy envelope that
 * stand out from their surroundings and fall on voiced frames.
 */

const frameMs = 10;
const minPeakDistanceMs = 110;
const prominenceDb = 2.5;
const speechFloorDb = 30;

export interface SpeakingRate {
  syllablesPerSecond: number;
  syllables: number;
  /** Time with speech energy, pauses excluded. */
  speechMs: number;
}

export function measureSpeakingRate(pcm: Int16Array, sampleRate: number, f0: Float32Array): SpeakingRate {
  const hop = Math.round((sampleRate * frameMs) / 1000);
  const frames = Math.floor(pcm.length / hop);
  const db = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    let e = 0;
    for (let j = 0; j < hop; j++) e += (pcm[f * hop + j]! / 32768) ** 2;
    db[f] = 10 * Math.log10(e / hop + 1e-10);
  }
  const smooth = movingAverage(db, 5);
  const loudest = smooth.reduce((m, v) => Math.max(m, v), -Infinity);
  const speechFloor = loudest - speechFloorDb;
  let speechFrames = 0;
  for (const v of smooth) if (v > speechFloor) speechFrames++;

  const voiced = (f: number) => f0[f] !== undefined && (f0[f]! > 0 || f0[f - 1]! > 0 || f0[f + 1]! > 0);
  const peaks: number[] = [];
  const span = Math.round(minPeakDistanceMs / frameMs);
  for (let f = 1; f < frames - 1; f++) {
    const v = smooth[f]!;
    if (v <= speechFloor || v < smooth[f - 1]! || v < smooth[f + 1]! || !voiced(f)) continue;
    let leftMin = v;
    for (let k = f - 1; k >= Math.max(0, f - 3 * span); k--) leftMin = Math.min(leftMin, smooth[k]!);
    let rightMin = v;
    for (let k = f + 1; k < Math.min(frames, f + 3 * span); k++) rightMin = Math.min(rightMin, smooth[k]!);
    if (v - Math.max(leftMin, rightMin) < prominenceDb) continue;
    const previous = peaks.at(-1);
    if (previous !== undefined && f - previous < span) {
      if (v > smooth[previous]!) peaks[peaks.length - 1] = f;
      continue;
    }
    peaks.push(f);
  }
  const speechMs = speechFrames * frameMs;
  return { syllables: peaks.length, speechMs, syllablesPerSecond: speechMs > 0 ? (peaks.length * 1000) / speechMs : 0 };
}

function movingAverage(values: Float32Array, width: number): Float32Array {
  const out = new Float32Array(values.length);
  const half = Math.floor(width / 2);
  for (let i = 0; i < values.length; i++) {
    let sum = 0;
    let count = 0;
    for (let k = Math.max(0, i - half); k <= Math.min(values.length - 1, i + half); k++) {
      sum += values[k]!;
      count++;
    }
    out[i] = sum / count;
  }
  return out;
}
