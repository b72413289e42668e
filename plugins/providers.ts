import type { ProviderDescriptor } from '../src/agent/index.js';
import { cartesiaProvider } from './cartesia/index.js';
import { deepgramProvider } from './deepgram/index.js';
import { elevenLabsProvider } from './elevenlabs/index.js';
import { openaiProvider } from './openai-audio/index.js';

/**
 * The speech providers the command line can build (`--stt NAME[:MODEL]`, `--tts NAME[:VOICE]`), one descriptor per
 * `plugins/<provider>/index.ts`. `service` and `local` are not listed: they are the speech stacks of `src/agent`.
 */
export const speechProviders: readonly ProviderDescriptor[] = [deepgramProvider, openaiProvider, cartesiaProvider, elevenLabsProvider];

export { knownProviderNames } from './provider-names.js';

export function speechProvider(name: string): ProviderDescriptor | undefined {
  return speechProviders.find((provider) => provider.name === name);
}
