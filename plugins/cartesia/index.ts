import type { ProviderDescriptor } from '../../src/agent/index.js';
import { checkKeyByRequest, httpUrl } from '../provider-kit.js';
import { CartesiaTextToSpeech } from './cartesia-tts.js';
import { baseUrlVariable, cartesiaBaseUrl, cartesiaDefaults, keyVariable, type CartesiaOptions } from './options.js';

export { CartesiaTextToSpeech } from './cartesia-tts.js';
export { cartesiaDefaults, type CartesiaOptions } from './options.js';

/** Cartesia streaming synthesis: `tts: cartesia({ voice: '…' })`; the key defaults to `CARTESIA_API_KEY`. */
export function cartesia(options: Partial<CartesiaOptions> = {}): CartesiaTextToSpeech {
  return new CartesiaTextToSpeech(options);
}

/** `--tts cartesia[:VOICE]`. */
export const cartesiaProvider: ProviderDescriptor = {
  name: 'cartesia',
  keyVariable,
  baseUrlVariable,
  defaultBaseUrl: cartesiaBaseUrl,
  tts: ({ apiKey, baseUrl, voice }) => cartesia({ ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}), ...(voice ? { voice } : {}) }),
  // One voice of the account's list: 401 when the key is not taken.
  checkKey: ({ apiKey, baseUrl }, signal) =>
    checkKeyByRequest('cartesia', httpUrl(baseUrl ?? cartesiaBaseUrl, '/voices', { limit: '1' }), {
      headers: { Authorization: `Bearer ${apiKey ?? ''}`, 'Cartesia-Version': cartesiaDefaults.version },
      keyVariable,
      signal,
    }),
};
