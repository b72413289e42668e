/**
 * The recognizer arguments of the agent stacks, measured with bench/recognizer-cost.ts (one thread; human
 * clips of both folds at 16 kHz and telephone band, synthetic speech and fixture calls; quiet machine).
 * - `-fwdflat no`: pocketsphinx's flat-lexicon second pass runs over the whole utterance when it ends (about
 *   15x slower at the endpoint on a 4 s utterance); skipped. CPU 584 -> ~415-474 ms per audio second, held-out
 *   sentence WER 0.31/0.66 -> 0.25/0.62 (16k/8k), short answers equal but tuning 8k +2 words of 12.
 * - `-maxhmmpf 10000` (at most 10000 active HMMs per frame): 415 -> 351 ms CPU per audio second with the same
 *   words on every set (fitted on the tuning fold, checked on held-out). 5000 gave 250 ms but held-out
 *   sentences at 8k lost 6 points; `-topn 2` lost 4 held-out short-answer words; `-pl_window 10` saved nothing.
 */
export const streamingAsrArguments = ['-fwdflat', 'no', '-maxhmmpf', '10000'];
