/**
 * The recognizer arguments of the agent stacks, chosen with bench/recognizer-cost.ts (one thread; human clips
 * of both folds at 16 kHz and telephone band, synthetic speech and fixture calls); figures and the settings
 * measured against them are in docs/measurements.md.
 * - `-fwdflat no`: pocketsphinx's flat-lexicon second pass runs over the whole utterance when it ends (about
 *   15x slower at the endpoint on a 4 s utterance), and it did not lower the held-out word error rate.
 * - `-maxhmmpf 7500 -maxwpf 20` (at most 7500 active HMMs and 20 word exits per frame): the word error rate of
 *   `-maxhmmpf 10000` on every set at about two thirds of its CPU.
 */
export const streamingAsrArguments = ['-fwdflat', 'no', '-maxhmmpf', '7500', '-maxwpf', '20'];
