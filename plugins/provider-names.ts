/** The names `--stt`/`--tts` know; a build without a name's adapter says "not available in this build". */
export const knownProviderNames = ['deepgram', 'openai', 'cartesia', 'elevenlabs', 'service', 'local'] as const;
