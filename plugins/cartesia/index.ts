import type { ProviderDescriptor } from '../../src/agent/index.js';
import { CartesiaTextToSpeech } from './cartesia-tts.js';
import { baseUrlVariable, cartesiaBaseUrl, keyVariable, type CartesiaOptions } from './options.js';

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
};
