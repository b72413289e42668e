import type { FastifyInstance } from 'fastify';
import { context } from '@opentelemetry/api';
import { decodeAudio, resample } from '../../audio/index.js';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { chargeFor } from '../http/gate.js';
import { startServerSpan } from '../http/tracing.js';
import { readAsrRequest } from './request.js';
import { segmentWords, type TranscriptSegment } from './segments.js';

/** The sample rate the recogniser takes. */
const recognizerRate = 16000;

export interface TranscriptionResult {
  text: string;
  /** Seconds. */
  duration: number;
  segments: TranscriptSegment[];
  language: string;
}

function minutes(ms: number): string {
  return `${Math.round(ms / 60000)} minutes`;
}

/** POST /v1/asr: multipart or MessagePack audio in, `{text, duration, segments}` out. */
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
      try {
        const input = await readAsrRequest(request, limits.asrAudioBytes);
        const result = await context.with(asr.context, async () => {
          const decoded = await decodeAudio(input.audio);
          const durationMs = (decoded.samples.length * 1000) / decoded.sampleRate;
          if (durationMs > limits.asrMaxDurationMs) {
            throw new ServiceError(
              400,
              `audio is ${minutes(durationMs)} long; the limit is ${minutes(limits.asrMaxDurationMs)}: split the recording and offset the timestamps`,
            );
          }
          if (durationMs < limits.asrMinDurationMs) {
            throw new ServiceError(
              400,
              `audio is ${(durationMs / 1000).toFixed(2)} s long; send at least ${limits.asrMinDurationMs / 1000} s of audio`,
            );
          }
          const engine = service.engines.asr();
          const pcm = await resample(decoded.samples, decoded.sampleRate, recognizerRate);
          const hypothesis = await engine.transcribe(pcm, { language: input.language, ...(input.hints ? { expectations: input.hints } : {}) });
          asr.span.setAttributes({ 'asr.duration_ms': Math.round(durationMs), 'asr.words': hypothesis.words.length });
          const transcript: TranscriptionResult = {
            text: hypothesis.text,
            duration: Math.round(durationMs) / 1000,
            segments: input.ignoreTimestamps ? [] : segmentWords(hypothesis.words),
            language: input.language ?? 'en',
          };
          return { transcript, durationMs };
        });
        await chargeFor(service.accounts, request, { kind: 'asr', seconds: result.durationMs / 1000 });
        asr.end();
        return reply.send(result.transcript);
      } catch (error) {
        asr.end(error);
        throw error;
      }
    },
  );
}
