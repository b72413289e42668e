/**
 * The recognizer arguments of the agent stacks, measured with bench/recognizer-cost.ts (one thread; human
 * clips of both folds at 16 kHz and telephone band, synthetic speech and fixture calls; quiet machine).
 * - `-fwdflat no`: pocketsphinx's flat-lexicon second pass runs over the whole utterance when it ends (about
 *   15x slower at the endpoint on a 4 s utterance); skipped. CPU 584 -> ~415-474 ms per audio second, held-out
 *   sentence WER 0.31/0.66 -> 0.25/0.62 (16k/8k), short answers equal but tuning 8k +2 words of 12.
 * - `-maxhmmpf 7500 -maxwpf 20` (at most 7500 active HMMs and 20 word exits per frame): the same WER as
 *   `-maxhmmpf 10000` on every set (both folds at 16k and 8k, the fixtures); CPU per audio second 370 -> 239
 *   measured back to back at load 5 (session 4).
 *   Rejected, each on top of `-fwdflat no -maxhmmpf 10000`: `-ds 2` (fixture calls WER 0.14 -> 0.31, held-out
 *   sentences 16k 0.25 -> 0.33), `-beam 1e-40 -wbeam 1e-30` (fixture calls 0.49), `-maxwpf 10` (held-out short
 *   answers 16k +2 words of 8), `-pbeam 1e-40` (held-out sentences 8k +5 words of 84); earlier `-maxhmmpf 5000`
 *   (held-out sentences 8k +6 points), `-topn 2` (held-out short answers +4 words), `-pl_window 10` (no saving).
 */
export const streamingAsrArguments = ['-fwdflat', 'no', '-maxhmmpf', '7500', '-maxwpf', '20'];
