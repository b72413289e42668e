import type { FastifyInstance } from 'fastify';
import { context } from '@opentelemetry/api';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { reserveFor } from '../http/gate.js';
import { startServerSpan } from '../http/tracing.js';
import { readAsrRequest } from './request.js';
import { segmentWords, type TranscriptSegment } from './segments.js';
import { spanAttributes } from '../../tracing/index.js';
import { MediaPool } from '../../engines/index.js';
import { AudioTooLongError } from '../../audio/index.js';

/** The sample rate the recogniser takes. */
const recognizerRate = 16000;

export interface TranscriptionResult {
  text: string;
  /** Seconds. */
  duration: number;
  segments: TranscriptSegment[];
  language: string;
  /** Shoal extension, with `hints`: false when the words came out as open vocabulary, outside the hints. */
  expected?: boolean;
}

function minutes(ms: number): string {
  return `${Math.round(ms / 60000)} minutes`;
}

/** 400 unless the audio lasts between the service's shortest and longest accepted durations. */
function checkDuration(durationMs: number, limits: ServiceContext['limits']): void {
  if (durationMs > limits.asrMaxDurationMs) {
    throw new ServiceError(
      400,
      `audio is ${minutes(durationMs)} long; the limit is ${minutes(limits.asrMaxDurationMs)}: split the recording and offset the timestamps`,
    );
  }
  if (durationMs < limits.asrMinDurationMs) {
    throw new ServiceError(400, `audio is ${seconds(durationMs)} s long; send at least ${seconds(limits.asrMinDurationMs)} s of audio`);
  }
}

/** Seconds with up to three decimals, never rounded up to the limit: 999 ms is "0.999", 1000 ms is "1". */
function seconds(ms: number): string {
  return String(Math.floor(ms) / 1000);
}

/**
 * POST /v1/asr: multipart or MessagePack audio in, `{text, duration, segments}` out. The price is reserved once
 * the audio's duration is known; recognition stops and nothing is billed when the client leaves first.
 */
export function registerAsrRoute(app: FastifyInstance, service: ServiceContext): void {
  const { limits } = service;
  app.post(
    '/v1/asr',
    {
      config: { inference: true },
      bodyLimit: limits.asrAudioBytes + 64 * 1024,
      // The interface's reference also names the multipart type `application/form-data`.
      onRequest: async (request) => {
        const type = request.headers['content-type'];
        if (type?.toLowerCase().startsWith('application/form-data')) {
          request.headers['content-type'] = `multipart/form-data${type.slice('application/form-data'.length)}`;
        }
      },
    },
    async (request, reply) => {
      const asr = startServerSpan('asr', request.traceContext, { 'http.route': '/v1/asr' });
      request.traceId = asr.traceId;
      const controller = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort(new Error('client closed the connection'));
      });
      try {
        const input = await readAsrRequest(request, limits.asrAudioBytes);
        const result = await context.with(asr.context, async () => {
          // Decoded and resampled in a media worker; the samples come back moved, not copied.
          // Longer audio is refused from its container's header, or by the decoder stopping at the limit, before it is held.
          const decoded = await MediaPool.shared()
            .decode(input.audio, { sampleRate: recognizerRate, maxDurationMs: limits.asrMaxDurationMs, signal: controller.signal })
            .catch((error: unknown) => {
              if (error instanceof AudioTooLongError) throw new ServiceError(400, `${error.message} and offset the timestamps`);
              throw error;
            });
          const { durationMs } = decoded;
          checkDuration(durationMs, limits);
          const usage = { kind: 'asr', seconds: durationMs / 1000 } as const;
          const reservation = await reserveFor(service.accounts, request, usage);
          try {
            const engine = service.engines.asr();
            // Telephone audio (8 kHz or less) starts from the telephone cepstral mean, as a streamed call does.
            const telephoneBand = decoded.sourceRate <= 8000;
            const hypothesis = await engine.transcribe(decoded.samples, { language: input.language, signal: controller.signal, telephoneBand, ...(input.hints ? { expectations: input.hints } : {}) });
            controller.signal.throwIfAborted();
            await reservation.settle(usage);
            asr.span.setAttributes({ [spanAttributes.asrAudioMs]: Math.round(durationMs), [spanAttributes.asrWords]: hypothesis.words.length });
            const transcript: TranscriptionResult = {
              text: hypothesis.text,
              duration: Math.round(durationMs) / 1000,
              segments: input.ignoreTimestamps ? [] : segmentWords(hypothesis.words),
              language: input.language ?? 'en',
              ...(input.hints && hypothesis.expected !== undefined ? { expected: hypothesis.expected } : {}),
            };
            return transcript;
          } finally {
            await reservation.settle(null);
          }
        });
        asr.end();
        return reply.send(result);
      } catch (error) {
        asr.end(error);
        throw error;
      }
    },
  );
}
