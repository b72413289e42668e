/**
 * Pocketsphinx's flat-lexicon second pass runs over the whole utterance when it ends (about 15x slower
 * at the endpoint on a 4 s utterance, same words on the fixtures); a streaming agent skips it.
 * Measured by bench/recognizer-cost.ts (one thread, human clips both folds at 16 kHz and telephone band,
 * plus the fixture calls): 474 ms CPU per audio second vs 584 with the second pass; held-out sentence WER
 * 0.25/0.62 (16k/8k) vs 0.31/0.66, short answers unchanged except tuning 8k (+2 words of 12).
 * Also tried on top of the engine default: `-topn 2` (479 ms, but +4 words on held-out short answers and
 * fixture-call WER 0.12 -> 0.20) and `-pl_window 10` (no saving): neither is used.
 */
export const streamingAsrArguments = ['-fwdflat', 'no'];
