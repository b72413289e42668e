import type { FastifyInstance, FastifyRequest } from 'fastify';
import { context } from '@opentelemetry/api';
import { AudioTooLongError } from '../../audio/index.js';
import { MediaPool } from '../../engines/index.js';
import { spanAttributes } from '../../tracing/index.js';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { reserveFor } from '../http/gate.js';
import { startServerSpan } from '../http/tracing.js';
import { AudioInput, recognizerRate } from './audio-input.js';
import { sendDeepgramError } from './errors.js';
import { metadataMessage, resultWords } from './messages.js';
import type { ListenOptions } from './options.js';
import { readListenQuery, type ListenSettings } from './query.js';

/** Raw audio in the body: any `audio/*` or `video/*` type, or `application/octet-stream`. */
const audioTypes = /^(?:audio\/|video\/|application\/octet-stream)/i;

interface Decoded {
  samples: Int16Array;
  durationMs: number;
  sourceRate: number;
}

/** Raw samples (`encoding` and `sample_rate` given) or a file in any container Shoal decodes (`opus`: Ogg or WebM), as 16 kHz mono. */
async function decodeBody(body: Buffer, settings: ListenSettings, limits: ServiceContext['limits'], signal: AbortSignal): Promise<Decoded> {
  if (settings.encoding !== 'container' && settings.encoding !== 'opus') {
    const input = new AudioInput(settings.encoding, settings.sampleRate);
    if (input.take(body) > limits.asrMaxDurationMs) throw new ServiceError(400, `audio is longer than ${limits.asrMaxDurationMs / 60000} minutes; split the recording`);
    const head = await input.decode();
    const tail = input.flush();
    const samples = new Int16Array(head.length + tail.length);
    samples.set(head);
    samples.set(tail, head.length);
    return { samples, durationMs: input.receivedMs, sourceRate: settings.sampleRate! };
  }
  const decoded = await MediaPool.shared()
    .decode(new Uint8Array(body.buffer, body.byteOffset, body.byteLength), { sampleRate: recognizerRate, maxDurationMs: limits.asrMaxDurationMs, signal })
    .catch((error: unknown) => {
      if (error instanceof AudioTooLongError) throw new ServiceError(400, `${error.message}`);
      throw error;
    });
  return decoded;
}

function audioBody(request: FastifyRequest): Buffer {
  if (Buffer.isBuffer(request.body)) {
    if (request.body.length === 0) throw new ServiceError(400, 'the request body is empty; send the audio file as the body');
    return request.body;
  }
  if (request.body && typeof request.body === 'object' && 'url' in request.body) {
    throw new ServiceError(400, 'this server does not fetch audio from URLs; send the audio itself as the body (Content-Type: audio/wav, audio/mpeg, ...)');
  }
  throw new ServiceError(400, 'send the audio as the request body with Content-Type audio/* (or application/octet-stream)');
}

/**
 * POST /v1/listen, Deepgram's prerecorded transcription: the audio as the body, the same query as the live
 * socket, Deepgram's response `{metadata, results.channels[0].alternatives[0]}`; a `{"url"}` body is refused.
 */
export function registerPrerecordedRoute(app: FastifyInstance, service: ServiceContext, options: ListenOptions): void {
  const { limits } = service;
  void app.register(async (scope) => {
    scope.addContentTypeParser(audioTypes, { parseAs: 'buffer', bodyLimit: limits.asrAudioBytes }, (_request, body, done) => done(null, body));
    scope.post(options.path, { config: { inference: true }, bodyLimit: limits.asrAudioBytes, errorHandler: sendDeepgramError }, async (request, reply) => {
      const span = startServerSpan('asr.listen', request.traceContext, { 'http.route': options.path });
      request.traceId = span.traceId;
      const controller = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort(new Error('client closed the connection'));
      });
      try {
        const settings = readListenQuery(new URL(request.url, 'http://localhost').searchParams, false);
        const body = audioBody(request);
        const result = await context.with(span.context, async () => {
          const decoded = await decodeBody(body, settings, limits, controller.signal);
          if (decoded.durationMs < limits.asrMinDurationMs) throw new ServiceError(400, `audio is ${Math.floor(decoded.durationMs)} ms long; send at least ${limits.asrMinDurationMs} ms`);
          const usage = { kind: 'asr', seconds: decoded.durationMs / 1000 } as const;
          const reservation = await reserveFor(service.accounts, request, usage);
          try {
            const hypothesis = await service.engines.asr().transcribe(decoded.samples, {
              language: settings.language,
              signal: controller.signal,
              telephoneBand: decoded.sourceRate <= 8000,
              ...(settings.hints ? { expectations: settings.hints } : {}),
            });
            controller.signal.throwIfAborted();
            const chargeMicros = await reservation.settle(usage);
            span.span.setAttributes({ [spanAttributes.asrAudioMs]: Math.round(decoded.durationMs), [spanAttributes.asrWords]: hypothesis.words.length });
            const words = resultWords(hypothesis.words, 0);
            const { type: _type, ...metadata } = metadataMessage({ requestId: request.id, durationMs: decoded.durationMs, model: settings.model, created: new Date(), chargeMicros });
            return {
              metadata,
              results: { channels: [{ alternatives: [{ transcript: hypothesis.text, confidence: words.length > 0 ? 1 : 0, words }] }] },
            };
          } finally {
            await reservation.settle(null);
          }
        });
        span.end();
        return reply.header('dg-request-id', request.id).send(result);
      } catch (error) {
        span.end(error);
        throw error;
      }
    });
  });
}
