import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';

/** Configuration of a `SpeechClient`. Every field is optional; `defaults` lists what an omitted field means. */
export interface ClientOptions {
  /** Base URL of the speech service (hosted or `shoal serve`). */
  baseUrl?: string;
  /** Bearer key; defaults to $FISH_API_KEY, then $SHOAL_API_KEY. */
  apiKey?: string;
  /** TTS `model` header used when a call names none. */
  model?: string;
  /** Time allowed until response headers arrive, and between two body chunks of a streamed response, in ms. */
  timeoutMs?: number;
  /** Retries after the first attempt for 408, 429, 5xx and connection failures. */
  maxRetries?: number;
  /** First backoff delay in ms; doubles per retry, with jitter. */
  retryBaseDelayMs?: number;
  /** Longest wait between two attempts in ms (also caps `Retry-After`). */
  retryMaxDelayMs?: number;
  /** A `fetch` to send HTTP requests with (a proxy, a mock, another runtime); by default node:http is used directly. */
  fetch?: typeof fetch;
  /** Agent for node:http(s) requests and the live WebSocket (proxies, TLS options, socket pooling). Default: a keep-alive agent. */
  agent?: HttpAgent | HttpsAgent;
  /** Headers added to every request, the live upgrade included. */
  headers?: Record<string, string>;
  /** Options of live TTS sessions. */
  live?: LiveOptions;
  /** Limits of one `/v1/asr` request; longer or larger inputs are split at silences. */
  asrLimits?: AsrLimits;
}

export interface LiveOptions {
  /** Audio idle gap that completes an utterance when the server sends no `utterance_end` (below), ms. */
  utteranceIdleMs?: number;
  /**
   * Ask the server to end each flushed utterance with an `utterance_end` event and complete utterances on it
   * instead of on the idle gap: exact and independent of load, and with billing it carries the utterance's charge.
   * `'auto'` (the default): when the server says it sends them (`shoal serve` answers the upgrade with
   * `Shoal-Utterance-End: supported`; the hosted service does not).
   */
  utteranceEndEvents?: boolean | 'auto';
  /** Interval of WebSocket pings, ms. */
  pingIntervalMs?: number;
  /** Time without a pong (or any frame) after which the socket counts as dead and is replaced, ms. */
  pingTimeoutMs?: number;
  /** Reconnect attempts after an unexpected close before the session fails. */
  maxReconnects?: number;
  /** First reconnect delay, ms; doubles per attempt. */
  reconnectDelayMs?: number;
  /** Time allowed for the WebSocket upgrade, ms. */
  connectTimeoutMs?: number;
}

export interface AsrLimits {
  /** Largest file one request may carry, bytes. */
  maxBytes: number;
  /** Longest audio one request may carry, ms. */
  maxDurationMs: number;
  /** How far before a forced cut to look for the quietest point, ms. */
  silenceSearchMs: number;
}

export const defaults = {
  baseUrl: 'https://api.fish.audio',
  model: 's2.1-pro-free',
  voiceDesignModel: 'voice-design-1',
  timeoutMs: 240_000,
  maxRetries: 2,
  retryBaseDelayMs: 1_000,
  retryMaxDelayMs: 60_000,
  live: {
    utteranceIdleMs: 500,
    utteranceEndEvents: 'auto',
    pingIntervalMs: 15_000,
    pingTimeoutMs: 60_000,
    maxReconnects: 3,
    reconnectDelayMs: 250,
    connectTimeoutMs: 15_000,
  } satisfies Required<LiveOptions>,
  asrLimits: {
    maxBytes: 20 * 1024 * 1024,
    maxDurationMs: 60 * 60 * 1000,
    silenceSearchMs: 30_000,
  } satisfies AsrLimits,
  /** Page size used by `voiceModels.iterate` when the caller names none. */
  listPageSize: 50,
} as const;

export interface ResolvedClientOptions {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  fetch: typeof fetch | undefined;
  agent: HttpAgent | HttpsAgent | undefined;
  headers: Record<string, string>;
  live: Required<LiveOptions>;
  asrLimits: AsrLimits;
}

export function resolveClientOptions(options: ClientOptions = {}): ResolvedClientOptions {
  return {
    baseUrl: (options.baseUrl ?? defaults.baseUrl).replace(/\/+$/, ''),
    apiKey: options.apiKey ?? process.env.FISH_API_KEY ?? process.env.SHOAL_API_KEY,
    model: options.model ?? defaults.model,
    timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
    maxRetries: options.maxRetries ?? defaults.maxRetries,
    retryBaseDelayMs: options.retryBaseDelayMs ?? defaults.retryBaseDelayMs,
    retryMaxDelayMs: options.retryMaxDelayMs ?? defaults.retryMaxDelayMs,
    fetch: options.fetch,
    agent: options.agent,
    headers: { ...options.headers },
    live: { ...defaults.live, ...options.live },
    asrLimits: { ...defaults.asrLimits, ...options.asrLimits },
  };
}

/** Options every call accepts. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
  /** A W3C `traceparent` to continue instead of the active OpenTelemetry context. */
  traceparent?: string;
}
