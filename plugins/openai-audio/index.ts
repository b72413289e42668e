import type { ProviderDescriptor } from '../../src/agent/index.js';
import { OpenAiSpeechToText } from './openai-stt.js';
import { OpenAiTextToSpeech } from './openai-tts.js';
import { baseUrlVariable, keyVariable, openAiBaseUrl, type OpenAiSpeechOptions, type OpenAiTranscriptionOptions } from './options.js';

export { OpenAiSpeechToText } from './openai-stt.js';
export { OpenAiTextToSpeech } from './openai-tts.js';
export { openAiSpeechDefaults, openAiTranscriptionDefaults, type OpenAiSpeechOptions, type OpenAiTranscriptionOptions } from './options.js';

/** Recognition on an OpenAI-compatible server: `stt: openaiTranscription({ model: 'whisper-1' })`. */
export function openaiTranscription(options: Partial<OpenAiTranscriptionOptions> = {}): OpenAiSpeechToText {
  return new OpenAiSpeechToText(options);
}

/** Synthesis on an OpenAI-compatible server: `tts: openaiSpeech({ voice: 'alloy' })`. */
export function openaiSpeech(options: Partial<OpenAiSpeechOptions> = {}): OpenAiTextToSpeech {
  return new OpenAiTextToSpeech(options);
}

/**
 * `--stt openai[:MODEL]` and `--tts openai[:VOICE]`. The key (`OPENAI_API_KEY`) is needed by OpenAI itself; a local
 * server at another base URL (speaches, Kokoro-FastAPI, vLLM, LocalAI) may run without one.
 */
export const openAiAudioProvider: ProviderDescriptor = {
  name: 'openai',
  keyVariable,
  baseUrlVariable,
  defaultBaseUrl: openAiBaseUrl,
  stt: ({ apiKey, baseUrl, model }) => openaiTranscription({ ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}), ...(model ? { model } : {}) }),
  tts: ({ apiKey, baseUrl, voice }) => openaiSpeech({ ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}), ...(voice ? { voice } : {}) }),
};
