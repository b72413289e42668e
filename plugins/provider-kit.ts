import WebSocket from 'ws';
import { ProviderError, failureOfStatus, traceparentOf, type Expectation } from '../src/agent/index.js';

/**
 * A provider's WebSocket URL from its base URL as the official SDK takes it: `https://api.deepgram.com` →
 * `wss://api.deepgram.com/v1/listen?…`, `http://127.0.0.1:8080/` → `ws://127.0.0.1:8080/v1/listen?…`. A base URL
 * with a path keeps it (`https://proxy.example/deepgram` + `/v1/listen`). Query values left undefined are omitted;
 * arrays repeat the key (`keyterm=a&keyterm=b`).
 */
export function websocketUrl(baseUrl: string, path: string, query: Record<string, string | number | boolean | readonly string[] | undefined> = {}): URL {
  const url = new URL(baseUrl);
  if (url.protocol === 'https:') url.protocol = 'wss:';
  else if (url.protocol === 'http:') url.protocol = 'ws:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, String(item));
    else url.searchParams.set(key, String(value));
  }
  return url;
}

/** The request's headers plus `traceparent` of the active trace context, when there is one. */
export function withTraceparent(headers: Record<string, string>): Record<string, string> {
  const traceparent = traceparentOf();
  return traceparent ? { ...headers, traceparent } : headers;
}

/**
 * Opens a provider's WebSocket and resolves once it is open. A refused upgrade (401, 402, 429, 5xx) rejects with a
 * `ProviderError` of its kind, an unreachable host with `unreachable`, no open within `timeoutMs` with `timeout`.
 */
export function openProviderSocket(
  provider: string,
  url: URL,
  options: { headers: Record<string, string>; timeoutMs: number; keyVariable?: string },
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: withTraceparent(options.headers), handshakeTimeout: options.timeoutMs });
    const fail = (error: ProviderError) => {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      reject(error);
    };
    socket.once('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk.slice(0, 500)));
      response.on('end', () => fail(refusal(provider, status, body, options.keyVariable)));
      response.on('error', () => fail(refusal(provider, status, body, options.keyVariable)));
    });
    socket.once('open', () => {
      socket.removeAllListeners('unexpected-response');
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error: Error & { code?: string }) => {
      const timedOut = /timed out|timeout/i.test(error.message);
      fail(new ProviderError(provider, timedOut ? 'timeout' : 'unreachable', `${timedOut ? 'no answer from' : 'cannot reach'} ${url.origin} (${error.code ?? error.message})`, { cause: error }));
    });
  });
}

/** A provider's HTTP URL from its base URL: `https://api.deepgram.com` + `/v1/auth/token`, a proxy's path kept. */
export function httpUrl(baseUrl: string, path: string, query: Record<string, string> = {}): URL {
  const url = new URL(baseUrl);
  if (url.protocol === 'wss:') url.protocol = 'https:';
  else if (url.protocol === 'ws:') url.protocol = 'http:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  return url;
}

/**
 * The start-up key check most providers allow: a `GET` that answers 2xx when the key is taken. A refusal is the
 * `ProviderError` of its status (`auth` for 401/403) unless `accepted(status, body)` says the key is fine anyway
 * (a scoped key lacking the permission the check needs); no answer is `unreachable` or `timeout`.
 */
export async function checkKeyByRequest(
  provider: string,
  url: URL,
  options: { headers: Record<string, string>; keyVariable: string; signal: AbortSignal; accepted?: (status: number, body: string) => boolean },
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { headers: withTraceparent(options.headers), signal: options.signal });
  } catch (error) {
    const timedOut = options.signal.aborted;
    throw new ProviderError(provider, timedOut ? 'timeout' : 'unreachable', `${timedOut ? 'no answer from' : 'cannot reach'} ${url.origin}${timedOut ? '' : ` (${causeOf(error)})`}`, { cause: error });
  }
  const body = (await response.text().catch(() => '')).slice(0, 2000);
  if (response.ok || options.accepted?.(response.status, body)) return;
  throw refusal(provider, response.status, body, options.keyVariable);
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/** The `ProviderError` for an HTTP refusal, with the provider's own words when its body has them. */
export function refusal(provider: string, status: number, body: string, keyVariable?: string): ProviderError {
  const kind = failureOfStatus(status);
  const said = reasonOf(body);
  const what = kind === 'auth' ? 'the API key was rejected' : kind === 'payment' ? 'payment required' : kind === 'rate-limit' ? 'rate limited' : 'refused the request';
  return new ProviderError(provider, kind, `${what} (HTTP ${status}${said ? `: ${said}` : ''})`, { status, ...(keyVariable ? { keyVariable } : {}) });
}

function reasonOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const reason = parsed['err_msg'] ?? parsed['message'] ?? parsed['error'] ?? parsed['detail'];
    if (typeof reason === 'string') return reason;
    // OpenAI's `{ error: { message } }`, ElevenLabs' `{ detail: { status, message } }`
    const nested = (reason as { message?: unknown } | undefined)?.message;
    if (typeof nested === 'string') return nested;
  } catch {
    // not JSON: the text as given
  }
  return body.trim().slice(0, 200);
}

/**
 * The words and phrases a call's expectations name, for a provider's keyword boosting (Deepgram's `keyterm`, a
 * Whisper `prompt`): choice options, names, phrase keywords (else the phrases), at most `max`, without repeats.
 */
export function expectedTerms(expectations: readonly Expectation[] | undefined, max: number): string[] {
  const terms = new Set<string>();
  for (const expectation of expectations ?? []) {
    const listed =
      expectation.kind === 'choice' ? expectation.options : expectation.kind === 'name' ? expectation.names : expectation.kind === 'phrases' ? (expectation.keywords ?? expectation.phrases) : [];
    for (const term of listed) {
      const trimmed = term.trim();
      if (trimmed) terms.add(trimmed);
    }
  }
  return [...terms].slice(0, Math.max(0, max));
}
