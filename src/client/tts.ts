import { chargeHeader, readCharge } from './charge.js';
import type { CallOptions } from './defaults.js';
import type { HttpTransport } from './http.js';
import { ConnectionError, InvalidRequestError } from './errors.js';
import { withRetries } from './retry.js';
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
  /**
   * Shoal extension: what the request is billed when its audio is received whole, in credits (the
   * `Shoal-Charge` header), once the response has begun; undefined when the service reports no charge.
   */
  readonly charge: number | undefined;
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
  let charge: number | undefined;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const trace = startCallTrace('tts', { [spanAttributes.ttsModel]: model, [spanAttributes.ttsTextChars]: request.text.length }, options.traceparent);
    let failure: unknown;
    let bytes = 0;
    try {
      const maxRetries = options.maxRetries ?? http.options.maxRetries;
      // Only a connection lost before the first audio chunk is retried: nothing reached the caller twice.
      const retryable = (error: unknown) => error instanceof ConnectionError;
      const chunksOf = await withRetries(async () => {
        const response = await http.send({ method: 'POST', path: '/v1/tts', headers: { model, ...trace.headers }, body, what: 'POST /v1/tts', call: options });
        charge = readCharge(response.headers.get(chargeHeader));
        const iterator = response.chunks()[Symbol.asyncIterator]();
        const first = await iterator.next();
        return { first, iterator };
      }, { ...http.retryPlan(maxRetries, options.signal), retryable });
      for (let next = chunksOf.first; !next.done; next = await chunksOf.iterator.next()) {
        bytes += next.value.byteLength;
        yield next.value;
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
    get charge() {
      return charge;
    },
  };
}
