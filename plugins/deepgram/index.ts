import type { ProviderDescriptor } from '../../src/agent/index.js';
import { checkKeyByRequest, httpUrl } from '../provider-kit.js';
import { DeepgramSpeechToText } from './deepgram-stt.js';
import { baseUrlVariable, deepgramBaseUrl, keyVariable, type DeepgramOptions } from './options.js';

export { DeepgramSpeechToText } from './deepgram-stt.js';
export { deepgramDefaults, type DeepgramOptions } from './options.js';

/** Deepgram live recognition: `stt: deepgram({ model: 'nova-3' })`; the key defaults to `DEEPGRAM_API_KEY`. */
export function deepgram(options: Partial<DeepgramOptions> = {}): DeepgramSpeechToText {
  return new DeepgramSpeechToText(options);
}

/** `--stt deepgram[:MODEL]`. */
export const deepgramProvider: ProviderDescriptor = {
  name: 'deepgram',
  keyVariable,
  baseUrlVariable,
  defaultBaseUrl: deepgramBaseUrl,
  stt: ({ apiKey, baseUrl, model }) => deepgram({ ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}), ...(model ? { model } : {}) }),
  // Deepgram's documented key test: details of the key, or 401 "Invalid credentials."
  checkKey: ({ apiKey, baseUrl }, signal) =>
    checkKeyByRequest('deepgram', httpUrl(baseUrl ?? deepgramBaseUrl, '/v1/auth/token'), { headers: { Authorization: `Token ${apiKey ?? ''}` }, keyVariable, signal }),
};
