import type OpenAI from 'openai';
import { ProviderError, requireKey } from '../../src/agent/index.js';
import { requireOptional } from '../../src/optional/index.js';
import { refusal } from '../provider-kit.js';
import { baseUrlVariable, keyVariable, openAiBaseUrl, type OpenAiAudioOptions } from './options.js';

export const provider = 'openai';

/** The `openai` SDK and a client for the options: no retries (failover decides), the key needed only by OpenAI itself. */
export function openAiClient(options: OpenAiAudioOptions): { sdk: typeof import('openai'); client: OpenAI; baseUrl: string } {
  const baseUrl = options.baseUrl ?? process.env[baseUrlVariable] ?? openAiBaseUrl;
  const given = options.apiKey ?? process.env[keyVariable];
  const apiKey = new URL(baseUrl).hostname === new URL(openAiBaseUrl).hostname ? requireKey(provider, given, keyVariable) : (given ?? 'none');
  const sdk = requireOptional<typeof import('openai')>('openai');
  return { sdk, client: new sdk.OpenAI({ apiKey, baseURL: baseUrl, maxRetries: 0, timeout: options.timeoutMs }), baseUrl };
}

/** The `ProviderError` for what the SDK threw; an abort (barge-in) is given back as it is. */
export function providerErrorOf(sdk: typeof import('openai'), error: unknown, baseUrl: string): unknown {
  if (error instanceof ProviderError || error instanceof sdk.APIUserAbortError) return error;
  if (error instanceof sdk.APIConnectionTimeoutError) return new ProviderError(provider, 'timeout', `no answer from ${baseUrl}`, { cause: error });
  if (error instanceof sdk.APIConnectionError) return new ProviderError(provider, 'unreachable', `cannot reach ${baseUrl} (${error.cause instanceof Error ? error.cause.message : error.message})`, { cause: error });
  if (error instanceof sdk.APIError && error.status !== undefined) return refusal(provider, error.status, JSON.stringify(error.error ?? {}), keyVariable);
  return error;
}
