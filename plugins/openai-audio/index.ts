import type { ProviderDescriptor } from '../../src/agent/index.js';
import { checkKeyByRequest, httpUrl } from '../provider-kit.js';
import { OpenAiSpeechToText } from './openai-stt.js';
import { OpenAiTextToSpeech } from './openai-tts.js';
import { baseUrlVariable, keyVariable, openAiBaseUrl, type OpenAiAudioOptions } from './options.js';

export { OpenAiSpeechToText } from './openai-stt.js';
export { OpenAiTextToSpeech, takeSentences } from './openai-tts.js';
export { openAiAudioDefaults, type OpenAiAudioOptions } from './options.js';

/** Recognition on an OpenAI-compatible server: `stt: openaiStt({ model: 'whisper-1' })`; the key defaults to `OPENAI_API_KEY`. */
export function openaiStt(options: Partial<OpenAiAudioOptions> = {}): OpenAiSpeechToText {
  return new OpenAiSpeechToText(options);
}

/** Synthesis on an OpenAI-compatible server: `tts: openaiTts({ voice: 'alloy' })`. */
export function openaiTts(options: Partial<OpenAiAudioOptions> = {}): OpenAiTextToSpeech {
  return new OpenAiTextToSpeech(options);
}

/** `--stt openai[:MODEL]`, `--tts openai[:VOICE]` (OpenAI, speaches, Kokoro-FastAPI, vLLM, LocalAI by `--stt-url`/`OPENAI_BASE_URL`). */
export const openaiProvider: ProviderDescriptor = {
  name: 'openai',
  keyVariable,
  baseUrlVariable,
  defaultBaseUrl: openAiBaseUrl,
  stt: ({ apiKey, baseUrl, model }) => openaiStt({ ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}), ...(model ? { sttModel: model } : {}) }),
  tts: ({ apiKey, baseUrl, voice }) => openaiTts({ ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}), ...(voice ? { voice } : {}) }),
  // The models list: 401 when the key is not taken. A compatible server without it (404) cannot tell.
  checkKey: ({ apiKey, baseUrl }, signal) =>
    checkKeyByRequest('openai', httpUrl(baseUrl ?? openAiBaseUrl, '/models'), { headers: { Authorization: `Bearer ${apiKey ?? ''}` }, keyVariable, signal }),
};
