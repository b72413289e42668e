import { ProviderError } from '../../src/agent/index.js';
import { refusal, withTraceparent } from '../provider-kit.js';
import { keyVariable } from './options.js';

export const provider = 'openai';

/**
 * POSTs to an OpenAI-compatible endpoint with the key and `traceparent`; a refusal becomes the `ProviderError` of
 * its status, no connection `unreachable`, no answer within `timeoutMs` (or the caller's abort) `timeout`.
 */
export async function post(url: string, apiKey: string, body: BodyInit, options: { json?: boolean; signal: AbortSignal; timeoutMs: number }): Promise<Response> {
  const headers = withTraceparent({ authorization: `Bearer ${apiKey}`, ...(options.json ? { 'content-type': 'application/json' } : {}) });
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers, body, signal });
  } catch (error) {
    if (options.signal.aborted) throw error;
    const timedOut = (error as Error).name === 'TimeoutError';
    throw new ProviderError(provider, timedOut ? 'timeout' : 'unreachable', `${timedOut ? 'no answer from' : 'cannot reach'} ${new URL(url).origin}`, { cause: error });
  }
  if (!response.ok) throw refusal(provider, response.status, await response.text().catch(() => ''), keyVariable);
  return response;
}
