/**
 * Sets the quiet between and around words to exact zeros, so that line noise does not move the cepstral mean
 * an utterance is normalised by.
 *
 * sphinxbase's cepstral mean normalisation leaves frames of zero energy (c0 < 0: exact digital silence) out of
 * the mean, but counts every other frame. An answer padded with digital silence is normalised by its speech
 * alone; the same answer under faint line noise (-85 dBFS, far below any real line) is normalised by a mean
 * its noise frames drag down, and is heard differently: "stop" as "stalling", "eight" as "a what". Gating the
 * quiet to zeros gives both the speech-only mean. Non-causal: it ranks the frames of the whole utterance.
 */
export interface SilenceGateOptions {
  /** A frame is speech when it is this many dB above the utterance's noise floor (its 10th-percentile frame)… */
  aboveFloorDb: number;
  /** …and not more than this many dB below its loud frames (its 95th-percentile frame). */
  belowPeakDb: number;
  /** Frames kept on each side of a speech frame, for weak onsets and endings. */
  hangoverFrames: number;
}

// Chosen on short human answers decoded whole under line noise from none to -50 dBFS (docs/listening.md).
export const defaults: SilenceGateOptions = { aboveFloorDb: 10, belowPeakDb: 50, hangoverFrames: 3 };

/** 10 ms at 16 kHz, pocketsphinx's frame rate. */
const frameSamples = 160;

/** `pcm` (16 kHz) with every frame far from speech set to zero; the input is not changed. */
export function gateSilence(pcm: Int16Array, options: SilenceGateOptions = defaults): Int16Array {
  const frames = Math.floor(pcm.length / frameSamples);
  if (frames === 0) return pcm;
  const levels = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    let energy = 0;
    for (let i = f * frameSamples; i < (f + 1) * frameSamples; i++) energy += pcm[i]! * pcm[i]!;
    levels[f] = Math.sqrt(energy / frameSamples);
  }
  const ranked = Float64Array.from(levels).sort();
  const floor = ranked[Math.floor(frames * 0.1)]!;
  const peak = ranked[Math.floor(frames * 0.95)]!;
  const threshold = Math.max(floor * 10 ** (options.aboveFloorDb / 20), peak * 10 ** (-options.belowPeakDb / 20));
  // Speech frames, and the frames within the hangover of one, keep their samples.
  const kept = new Uint8Array(frames);
  levels.forEach((level, f) => {
    if (level >= threshold) kept.fill(1, Math.max(0, f - options.hangoverFrames), f + options.hangoverFrames + 1);
  });
  const gated = pcm.slice();
  kept.forEach((keep, f) => {
    if (!keep) gated.fill(0, f * frameSamples, (f + 1) * frameSamples);
  });
  return gated;
}
