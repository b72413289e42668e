import { RESAMPLER_RATE_RANGE } from '../../audio/index.js';
import type { Expectation } from '../../speech/index.js';
import { ServiceError } from '../accounts.js';
import { hintsSchema } from '../asr/hints.js';

/**
 * How the client's audio is coded: raw samples at `sampleRate`; an Ogg or WebM Opus stream (`opus`); or,
 * without `encoding`, a WAV file or an Ogg or WebM Opus stream named by its first bytes (`container`).
 */
export type ListenEncoding = 'linear16' | 'mulaw' | 'alaw' | 'opus' | 'container';

/** The query of `/v1/listen`, in Deepgram's names (docs/compatible-deepgram.md). */
export interface ListenSettings {
  encoding: ListenEncoding;
  /** Hz; undefined for `container` (the WAV header says). */
  sampleRate?: number;
  interimResults: boolean;
  /** Silence that ends an utterance (a final with `speech_final`), in ms; false: only Finalize/CloseStream end one. */
  endpointingMs: number | false;
  /** Audio time without a new word after the last final word that sends `UtteranceEnd`, in ms. */
  utteranceEndMs?: number;
  vadEvents: boolean;
  /** `keyterm` and `keywords` as recognition hints, and `hints` (Shoal's: the JSON of `/v1/asr`'s hints). */
  hints?: Expectation[];
  model: string;
  language: string;
}

/** The endpointing Deepgram uses when the query names none, in ms. */
const defaultEndpointingMs = 10;
const encodings: Record<string, ListenEncoding> = { linear16: 'linear16', mulaw: 'mulaw', alaw: 'alaw', opus: 'opus', 'ogg-opus': 'opus' };
const undecoded = new Set(['flac', 'amr-nb', 'amr-wb', 'speex', 'g729', 'linear32']);
/** Codings whose stream says its own rate. */
const selfDescribing = new Set<ListenEncoding>(['opus', 'container']);

function badRequest(message: string): ServiceError {
  return new ServiceError(400, message);
}

function flag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null) return false;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw badRequest(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

function milliseconds(value: string, name: string, max: number): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms > max) throw badRequest(`${name} must be a whole number of milliseconds from 0 to ${max}, got ${JSON.stringify(value)}`);
  return ms;
}

/**
 * `keyterm` (Nova-3) and `keywords` (`word` or `word:boost`), each repeatable, as one `phrases` expectation; and
 * `hints`, this service's extension: what the caller is expected to say, as `/v1/asr` takes it.
 */
function hintsOf(query: URLSearchParams): Expectation[] | undefined {
  const expected = expectationsOf(query.get('hints'));
  const phrases = termsOf(query);
  const all = [...expected, ...(phrases.length > 0 ? [{ kind: 'phrases' as const, phrases, keywords: phrases.flatMap((phrase) => phrase.split(/\s+/)) }] : [])];
  return all.length > 0 ? all : undefined;
}

function expectationsOf(hints: string | null): Expectation[] {
  if (hints === null) return [];
  const parsed = hintsSchema.safeParse(hints);
  if (!parsed.success) throw badRequest(`hints: ${parsed.error.issues[0]?.message ?? 'not a JSON array of expectations'}, e.g. hints=[{"kind":"digits","maxLength":4}]`);
  return [...parsed.data];
}

function termsOf(query: URLSearchParams): string[] {
  const keyterms = query.getAll('keyterm').map((term) => term.trim()).filter(Boolean);
  const keywords = query.getAll('keywords').map((word) => word.replace(/:-?[\d.]+$/, '').trim()).filter(Boolean);
  const phrases = [...keyterms, ...keywords];
  if (phrases.length > 100) throw badRequest(`send at most 100 keyterm and keywords values together, got ${phrases.length}`);
  if (phrases.some((phrase) => phrase.length > 200)) throw badRequest('each keyterm or keywords value must be at most 200 characters');
  return phrases;
}

/** Reads the query of a `/v1/listen` request (`live` false: the prerecorded POST); throws ServiceError 400 naming what to fix. */
export function readListenQuery(query: URLSearchParams, live = true): ListenSettings {
  const encodingName = query.get('encoding');
  let encoding: ListenEncoding = 'container';
  if (encodingName !== null) {
    if (undecoded.has(encodingName)) {
      throw badRequest(`encoding=${encodingName} is not decoded by this server; send linear16, mulaw or alaw with sample_rate, opus (an Ogg or WebM Opus stream), or a WAV file without encoding`);
    }
    const known = encodings[encodingName];
    if (!known) throw badRequest(`unknown encoding ${JSON.stringify(encodingName)}; use linear16, mulaw, alaw or opus`);
    encoding = known;
  }
  const rateText = query.get('sample_rate');
  let sampleRate: number | undefined;
  if (rateText !== null) {
    sampleRate = Number(rateText);
    if (!Number.isInteger(sampleRate) || sampleRate < RESAMPLER_RATE_RANGE.min || sampleRate > RESAMPLER_RATE_RANGE.max) {
      throw badRequest(`sample_rate must be a whole number of Hz from ${RESAMPLER_RATE_RANGE.min} to ${RESAMPLER_RATE_RANGE.max}, got ${JSON.stringify(rateText)}`);
    }
  }
  if (!selfDescribing.has(encoding) && sampleRate === undefined) throw badRequest(`encoding=${encoding} needs sample_rate (e.g. sample_rate=16000)`);
  if (selfDescribing.has(encoding)) sampleRate = undefined;
  const channels = query.get('channels');
  if (channels !== null && channels !== '1') throw badRequest(`channels=${channels} is not supported; send one channel (channels=1)`);
  if (flag(query, 'multichannel')) throw badRequest('multichannel=true is not supported; send one channel');
  const endpointing = query.get('endpointing');
  const endpointingMs = endpointing === null ? defaultEndpointingMs : endpointing === 'false' ? false : milliseconds(endpointing, 'endpointing', 10_000);
  const utteranceEnd = query.get('utterance_end_ms');
  const interimResults = flag(query, 'interim_results');
  const utteranceEndMs = utteranceEnd === null ? undefined : milliseconds(utteranceEnd, 'utterance_end_ms', 5000);
  if (live && utteranceEndMs !== undefined && !interimResults) throw badRequest('utterance_end_ms needs interim_results=true');
  flag(query, 'punctuate');
  flag(query, 'smart_format');
  const hints = hintsOf(query);
  return {
    encoding,
    ...(sampleRate !== undefined ? { sampleRate } : {}),
    interimResults,
    endpointingMs,
    ...(utteranceEndMs !== undefined ? { utteranceEndMs } : {}),
    vadEvents: flag(query, 'vad_events'),
    ...(hints ? { hints } : {}),
    model: query.get('model') ?? 'general',
    language: query.get('language') ?? 'en',
  };
}
