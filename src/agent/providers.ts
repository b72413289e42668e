import type { SpeechToText, TextToSpeech } from './contracts.js';

/**
 * Why a speech provider failed, as failover and the command line need to know it:
 * - `auth`: the key is missing or rejected (401/403, a socket closed on a bad key);
 * - `payment`: the account is out of credit (402);
 * - `rate-limit`: too many requests or streams (429);
 * - `server`: the provider failed (5xx, an error frame);
 * - `request`: the provider refused what it was asked (400: an unknown model or voice, a bad option);
 * - `unreachable`: no connection (DNS, refused, TLS);
 * - `timeout`: no answer in time;
 * - `dropped`: the socket closed mid-call.
 */
export type ProviderFailure = 'auth' | 'payment' | 'rate-limit' | 'server' | 'request' | 'unreachable' | 'timeout' | 'dropped';

/** A speech provider's failure: what failover hands over on and what the command line prints as one line. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    /** The provider's name (`deepgram`). */
    readonly provider: string,
    readonly kind: ProviderFailure,
    message: string,
    readonly details: {
      /** The HTTP status or WebSocket close code, when there was one. */
      status?: number;
      /** The variable to name when the key is missing or rejected (`DEEPGRAM_API_KEY`). */
      keyVariable?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }

  /** One line for a person: what failed and what to do (set the variable, check the URL, …). */
  get line(): string {
    if (this.kind === 'auth' && this.details.keyVariable && !this.message.includes(this.details.keyVariable)) return `${this.provider}: ${this.message} (check ${this.details.keyVariable})`;
    return `${this.provider}: ${this.message}`;
  }
}

/** The failure an HTTP status (or a provider's close code carrying one) means. */
export function failureOfStatus(status: number): ProviderFailure {
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'payment';
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate-limit';
  if (status >= 500) return 'server';
  return 'request';
}

export function isProviderError(error: unknown): error is ProviderError {
  return error instanceof ProviderError;
}

/**
 * What the command line hands a provider's factory: `--stt NAME[:MODEL]` / `--tts NAME[:VOICE]`, `--stt-url`/
 * `--tts-url` (or the provider's `…_BASE_URL`), the key (its variable or `--…-key-file`).
 */
export interface ProviderSettings {
  apiKey?: string;
  /** The base URL as the provider's official SDK takes it (`https://api.deepgram.com`); the WebSocket scheme follows. */
  baseUrl?: string;
  /** Recognition model (`nova-3`), from `--stt NAME:MODEL`. */
  model?: string;
  /** Synthesis voice (a voice id), from `--tts NAME:VOICE`. */
  voice?: string;
}

/**
 * A provider as the command line knows it: `plugins/<provider>/index.ts` exports one beside its factories
 * (`deepgram({...})`), and `plugins/providers.ts` lists them.
 */
export interface ProviderDescriptor {
  /** The name on the command line (`--stt deepgram`). */
  name: string;
  /** The variable holding the key (`DEEPGRAM_API_KEY`); absent: no key is needed. */
  keyVariable?: string;
  /** The variable overriding the base URL (`DEEPGRAM_BASE_URL`). */
  baseUrlVariable?: string;
  defaultBaseUrl?: string;
  /** Makes its recogniser, when it has one. Throws `ProviderError` (`auth`) for a key it needs and lacks. */
  stt?(settings: ProviderSettings): SpeechToText;
  /** Makes its synthesiser, when it has one. */
  tts?(settings: ProviderSettings): TextToSpeech;
  /**
   * A cheap request telling whether the provider takes the key (Deepgram's `GET /v1/auth/token`), made by the
   * command line at start. Resolves when it does; throws `ProviderError`: `auth` when the key is rejected, another
   * kind when it could not tell (unreachable, timeout, a server error).
   */
  checkKey?(settings: ProviderSettings, signal: AbortSignal): Promise<void>;
}

/** One provider of a `--stt`/`--tts` list: `deepgram:nova-3` is `{ name: 'deepgram', variant: 'nova-3' }`. */
export interface ProviderChoice {
  name: string;
  /** The model (recognition) or voice (synthesis) after the colon. */
  variant?: string;
}

/** `deepgram:nova-3,local` → the providers in failover order. Throws a `RangeError` on an empty name. */
export function parseProviderChoices(value: string): ProviderChoice[] {
  return value.split(',').map((part) => {
    const trimmed = part.trim();
    const colon = trimmed.indexOf(':');
    const name = (colon < 0 ? trimmed : trimmed.slice(0, colon)).toLowerCase();
    const variant = colon < 0 ? undefined : trimmed.slice(colon + 1);
    if (!name) throw new RangeError(`"${value}" names an empty provider; give NAME[:MODEL] separated by commas, e.g. deepgram,local`);
    return variant ? { name, variant } : { name };
  });
}

/** The key for a provider that needs one, or a `ProviderError` (`auth`) naming its variable. */
export function requireKey(provider: string, apiKey: string | undefined, keyVariable: string): string {
  if (apiKey) return apiKey;
  throw new ProviderError(provider, 'auth', `no API key: set ${keyVariable}`, { keyVariable });
}
