/**
 * A starting cepstral mean for the en-us model on 8 kHz telephone audio resampled to 16 kHz (13 values,
 * the model's cepstrum). The model's own `-cmninit` is a wide-band mean; upsampled telephone audio has
 * no energy above 4 kHz, so its mean is far from it (c1 about +29 instead of -5) and live CMN needs a
 * whole utterance to get there, misrecognising it meanwhile.
 *
 * Measured, not tuned on the call fixtures: the 16 kHz speech fixtures (test/fixtures/speech) were put
 * through a telephone channel (sox: 8 kHz mu-law, then back to 16 kHz), concatenated (20.5 s), and
 * streamed through pocketsphinx with live CMN; this is the running mean it ended with.
 */
export const telephoneCepstralMean: readonly number[] = [
  45.93, 29.05, -25.19, 51.03, -17.26, 4.92, 18.16, -23.7, 22.51, -9.64, 3.15, 15.95, -7.92,
];
