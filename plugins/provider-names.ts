/** The names `--stt`/`--tts` take: the adapters of `plugins/providers.ts`, and Shoal's own `service` and `local`. */
export const knownProviderNames = ['deepgram', 'openai', 'cartesia', 'elevenlabs', 'service', 'local'] as const;
