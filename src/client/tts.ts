import type { CallOptions } from './defaults.js';
import type { HttpTransport } from './http.js';
import { ConnectionError, InvalidRequestError } from './errors.js';
import { retryDelayMs, sleep } from './retry.js';
import { jsonBody, msgpackBody } from './request-body.js';
import { startCallTrace } from './tracing.js';
import type { TtsModel, TtsRequest } from './types.js';
import { spanAttributes } from '../tracing/index.js';

export interface TtsOptions extends CallOptions {
  /** `model` header; defaults to the client's model. */
  model?: TtsModel;
  /** Force a body encoding; by default msgpack when `references` are present, else JSON. */
  encoding?: 'json' | 'msgpack';
}

/** Audio of one TTS call as chunks as they arrive; iterate once, or call `collect()`. */
export interface AudioStream extends AsyncIterable<Uint8Array> {
  collect(): Promise<Uint8Array>;
}

export function hasReferences(request: TtsRequest): boolean {
  return Array.isArray(request.references) && request.references.length > 0;
}

export function validateTtsRequest(request: TtsRequest): void {
  if (!request || typeof request.text !== 'string') {
    throw new InvalidRequestError('a TTS request needs `text` (a string)');
  }
}

/** JSON or msgpack body for a TTS request: msgpack when references are present (JSON cannot carry bytes). */
export function ttsBody(request: TtsRequest, encoding?: 'json' | 'msgpack') {
  const chosen = encoding ?? (hasReferences(request) ? 'msgpack' : 'json');
  if (chosen === 'json' && hasReferences(request)) {
    throw new InvalidRequestError('`references` carry raw audio and need msgpack; drop `encoding: "json"`');
  }
  return chosen === 'msgpack' ? msgpackBody(request) : jsonBody(request);
}

/** Gathers every chunk of an audio stream into one buffer. */
export async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

export function streamTts(http: HttpTransport, request: TtsRequest, options: TtsOptions = {}): AudioStream {
  validateTtsRequest(request);
  const body = ttsBody(request, options.encoding);
  const model = options.model ?? http.options.model;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const trace = startCallTrace('tts', { [spanAttributes.ttsModel]: model, [spanAttributes.ttsTextChars]: request.text.length }, options.traceparent);
    let failure: unknown;
    let bytes = 0;
    try {
      const maxRetries = options.maxRetries ?? http.options.maxRetries;
      for (let retry = 0; ; retry++) {
        const response = await http.send({ method: 'POST', path: '/v1/tts', headers: { model, ...trace.headers }, body, what: 'POST /v1/tts', call: options });
        try {
          for await (const chunk of response.chunks()) {
            bytes += chunk.byteLength;
            yield chunk;
          }
          break;
        } catch (error) {
          // a connection lost before any audio reached the caller can be retried without duplicating audio
          if (!(error instanceof ConnectionError) || bytes > 0 || retry >= maxRetries) throw error;
          await sleep(retryDelayMs(retry, http.options.retryBaseDelayMs, http.options.retryMaxDelayMs), options.signal);
        }
      }
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      trace.span.setAttribute(spanAttributes.ttsAudioBytes, bytes);
      trace.end(failure);
    }
  }
  return {
    [Symbol.asyncIterator]: chunks,
    collect: () => collect({ [Symbol.asyncIterator]: chunks }),
  };
}
