/**
 * A starting cepstral mean for the en-us model on 8 kHz telephone audio resampled to 16 kHz (13 values,
 * the model's cepstrum). The model's own `-cmninit` is a wide-band mean; upsampled telephone audio has
 * no energy above 4 kHz, so its mean is far from it (c1 about +29 instead of -5) and live CMN needs a
 * whole utterance to get there, misrecognising it meanwhile.
 *
 * Fitted on real speech, the tuning fold of test/fixtures/human (folds.json; none of the held-out
 * speakers): its 9 clips put through a telephone channel (8 kHz mu-law and back to 16 kHz, as
 * bench/listening.ts does), their voiced regions joined (25 s) and decoded as one utterance with batch
 * CMN; this is that utterance's mean. (It replaced a mean measured the same way on synthetic speech,
 * [45.93, 29.05, -25.19, 51.03, -17.26, 4.92, 18.16, -23.7, 22.51, -9.64, 3.15, 15.95, -7.92].)
 */
export const telephoneCepstralMean: readonly number[] = [
  48.3, 28.61, -38.11, 44.97, -23.66, 0.97, 10.81, -30.88, 24.37, -12.65, -3.47, 9, -14.96,
];
