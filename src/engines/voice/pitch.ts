/** Fundamental frequency (F0) per 10 ms frame with the YIN difference function, on audio decimated to 8 kHz. */

export interface PitchTrackOptions {
  minHz: number;
  maxHz: number;
  /** YIN's threshold on the cumulative mean normalised difference; lower is stricter. */
  threshold: number;
  /** Frames quieter than this many dB below the loudest frame are treated as unvoiced. */
  silenceDb: number;
}

export const defaults: PitchTrackOptions = { minHz: 60, maxHz: 400, threshold: 0.25, silenceDb: 35 };

const analysisRate = 8000;
const hopMs = 10;
const windowMs = 25;

/** F0 in Hz per 10 ms frame (0 = unvoiced or silent). */
export function trackPitch(pcm: Int16Array, sampleRate: number, options: Partial<PitchTrackOptions> = {}): Float32Array {
  const { minHz, maxHz, threshold, silenceDb } = { ...defaults, ...options };
  const x = decimate(pcm, sampleRate);
  const hop = (analysisRate * hopMs) / 1000;
  const window = (analysisRate * windowMs) / 1000;
  const minLag = Math.floor(analysisRate / maxHz);
  const maxLag = Math.ceil(analysisRate / minHz);
  const frames = Math.max(0, Math.floor((x.length - window - maxLag) / hop) + 1);
  const energies = new Float32Array(frames);
  for (let f = 0; f < frames; f++) {
    let e = 0;
    for (let j = 0; j < window; j++) e += x[f * hop + j]! ** 2;
    energies[f] = e / window;
  }
  const loudest = energies.reduce((m, e) => Math.max(m, e), 0);
  const floor = loudest * 10 ** (-silenceDb / 10);
  const f0 = new Float32Array(frames);
  const diff = new Float32Array(maxLag + 1);
  for (let f = 0; f < frames; f++) {
    if (energies[f]! <= floor || loudest === 0) continue;
    const start = f * hop;
    for (let lag = 1; lag <= maxLag; lag++) {
      let d = 0;
      for (let j = 0; j < window; j++) {
        const delta = x[start + j]! - x[start + j + lag]!;
        d += delta * delta;
      }
      diff[lag] = d;
    }
    // Cumulative mean normalised difference, then the first dip under the threshold.
    let running = 0;
    let chosen = -1;
    for (let lag = 1; lag <= maxLag; lag++) {
      running += diff[lag]!;
      diff[lag] = running > 0 ? (diff[lag]! * lag) / running : 1;
    }
    for (let lag = minLag; lag < maxLag; lag++) {
      if (diff[lag]! < threshold) {
        while (lag + 1 < maxLag && diff[lag + 1]! < diff[lag]!) lag++;
        chosen = lag;
        break;
      }
    }
    if (chosen < 0) continue;
    const a = diff[chosen - 1]!;
    const b = diff[chosen]!;
    const c = diff[chosen + 1]!;
    const shift = a + c - 2 * b !== 0 ? (a - c) / (2 * (a + c - 2 * b)) : 0;
    f0[f] = analysisRate / (chosen + shift);
  }
  return f0;
}

/** Halves the rate repeatedly (with a short averaging filter) until near 8 kHz; other rates are resampled linearly. */
function decimate(pcm: Int16Array, sampleRate: number): Float32Array {
  let x = Float32Array.from(pcm, (s) => s / 32768);
  let rate = sampleRate;
  while (rate >= analysisRate * 2) {
    const half = new Float32Array(Math.floor(x.length / 2));
    for (let i = 0; i < half.length; i++) {
      const prev = x[2 * i - 1] ?? x[0]!;
      half[i] = 0.25 * prev + 0.5 * x[2 * i]! + 0.25 * x[2 * i + 1]!;
    }
    x = half;
    rate /= 2;
  }
  if (rate === analysisRate) return x;
  const out = new Float32Array(Math.floor((x.length * analysisRate) / rate));
  for (let i = 0; i < out.length; i++) {
    const at = (i * rate) / analysisRate;
    const k = Math.floor(at);
    out[i] = x[k]! + (at - k) * ((x[k + 1] ?? x[k]!) - x[k]!);
  }
  return out;
}

export const pitchFrameMs = hopMs;
