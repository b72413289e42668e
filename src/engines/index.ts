/** Local engines behind small interfaces: TTS (flite), ASR (pocketsphinx), VAD (Silero). */
export * from './types.js';
export { InvalidVoiceSettingsError, UnsupportedLanguageError } from './errors.js';
export * from './pool/index.js';
export * from './flite/index.js';
export * from './pocketsphinx/index.js';
export * from './vad/index.js';
export * from './text/index.js';
export * from './voice/index.js';
export * from './media/index.js';
