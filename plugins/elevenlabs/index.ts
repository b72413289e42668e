import type { ProviderDescriptor } from '../../src/agent/index.js';
import { checkKeyByRequest, httpUrl } from '../provider-kit.js';
import { ElevenLabsTextToSpeech } from './elevenlabs-tts.js';
import { baseUrlVariable, elevenLabsBaseUrl, keyVariable, type ElevenLabsOptions } from './options.js';

export { ElevenLabsTextToSpeech } from './elevenlabs-tts.js';
export { elevenLabsDefaults, type ElevenLabsOptions } from './options.js';

/** ElevenLabs streaming synthesis: `tts: elevenlabs({ voice: '…' })`; the key defaults to `ELEVENLABS_API_KEY`. */
export function elevenlabs(options: Partial<ElevenLabsOptions> = {}): ElevenLabsTextToSpeech {
  return new ElevenLabsTextToSpeech(options);
}

/** `--tts elevenlabs[:VOICE]`. */
export const elevenLabsProvider: ProviderDescriptor = {
  name: 'elevenlabs',
  keyVariable,
  baseUrlVariable,
  defaultBaseUrl: elevenLabsBaseUrl,
  tts: ({ apiKey, baseUrl, voice }) => elevenlabs({ ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}), ...(voice ? { voice } : {}) }),
  // The key's user; a key scoped to synthesis lacks `user_read` (401 `missing_permissions`) but is a valid key.
  checkKey: ({ apiKey, baseUrl }, signal) =>
    checkKeyByRequest('elevenlabs', httpUrl(baseUrl ?? elevenLabsBaseUrl, '/v1/user'), {
      headers: { 'xi-api-key': apiKey ?? '' },
      keyVariable,
      signal,
      accepted: (status, body) => status === 401 && body.includes('missing_permissions'),
    }),
};
