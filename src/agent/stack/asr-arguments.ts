/**
 * Pocketsphinx's flat-lexicon second pass runs over the whole utterance when it ends (about 15x slower
 * at the endpoint on a 4 s utterance, same words on the fixtures); a streaming agent skips it.
 */
export const streamingAsrArguments = ['-fwdflat', 'no'];
