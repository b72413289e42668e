import { encodeWav, rms } from '../audio/index.js';
import type { AsrLimits } from './defaults.js';

/** A piece of a long recording, as a WAV of its own, and where it starts in the whole. */
export interface AudioPiece {
  wav: Uint8Array;
  startMs: number;
  durationMs: number;
}

const WAV_HEADER_BYTES = 44;
const LEVEL_WINDOW_MS = 20;
const MIN_PIECE_MS = 1_000;

/** Longest piece, in samples, that fits both the byte and the duration limit as 16-bit mono WAV. */
export function maxPieceSamples(sampleRate: number, limits: AsrLimits): number {
  const byBytes = Math.floor((limits.maxBytes - WAV_HEADER_BYTES) / 2);
  const byDuration = Math.floor((limits.maxDurationMs * sampleRate) / 1000);
  return Math.max(1, Math.min(byBytes, byDuration));
}

/** Index of the quietest `LEVEL_WINDOW_MS` window between `from` and `to`, at that window's middle. */
export function quietestPoint(samples: Int16Array, sampleRate: number, from: number, to: number): number {
  const window = Math.max(1, Math.round((LEVEL_WINDOW_MS * sampleRate) / 1000));
  let best = to;
  let bestLevel = Infinity;
  for (let start = to - window; start >= from; start -= window) {
    const level = rms(samples.subarray(start, start + window));
    if (level < bestLevel) {
      bestLevel = level;
      best = start + Math.floor(window / 2);
    }
  }
  return best;
}

/**
 * Cuts decoded audio into WAV pieces that each fit the limits, cutting at the quietest point within
 * `silenceSearchMs` before each forced limit so words are not split. No piece but a short input is under 1 s.
 */
export function splitAtSilences(samples: Int16Array, sampleRate: number, limits: AsrLimits): AudioPiece[] {
  const maxSamples = maxPieceSamples(sampleRate, limits);
  const minSamples = Math.round((MIN_PIECE_MS * sampleRate) / 1000);
  const searchSamples = Math.round((limits.silenceSearchMs * sampleRate) / 1000);
  const pieces: AudioPiece[] = [];
  let start = 0;
  while (start < samples.length) {
    let end = samples.length;
    if (samples.length - start > maxSamples) {
      const latest = Math.min(start + maxSamples, samples.length - minSamples);
      const earliest = Math.max(start + minSamples, latest - searchSamples);
      end = earliest < latest ? quietestPoint(samples, sampleRate, earliest, latest) : latest;
    }
    pieces.push({
      wav: encodeWav(samples.subarray(start, end), sampleRate),
      startMs: (start * 1000) / sampleRate,
      durationMs: ((end - start) * 1000) / sampleRate,
    });
    start = end;
  }
  return pieces;
}
