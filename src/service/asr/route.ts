import type { FastifyInstance } from 'fastify';
import { context } from '@opentelemetry/api';
import type { ServiceContext } from '../context.js';
import { reportCharge } from '../http/gate.js';
import { inServerSpan } from '../http/tracing.js';
import { abortOnClose, recognizeFile } from './recognize.js';
import { readAsrRequest } from './request.js';
import { segmentWords, type TranscriptSegment } from './segments.js';

export interface TranscriptionResult {
  text: string;
  /** Seconds. */
  duration: number;
  segments: TranscriptSegment[];
  language: string;
  /** Shoal extension, with `hints`: false when the words came out as open vocabulary, outside the hints. */
  expected?: boolean;
}

/** Multipart bodies may name their type `application/form-data` (the interface's reference does). */
export async function acceptFormDataAlias(request: { headers: Record<string, string | string[] | undefined> }): Promise<void> {
  const type = request.headers['content-type'];
  if (typeof type === 'string' && type.toLowerCase().startsWith('application/form-data')) {
    request.headers['content-type'] = `multipart/form-data${type.slice('application/form-data'.length)}`;
  }
}

/**
 * POST /v1/asr: multipart or MessagePack audio in, `{text, duration, segments}` out. The price is reserved once
 * the audio's duration is known; recognition stops and nothing is billed when the client leaves first.
 */
export function registerAsrRoute(app: FastifyInstance, service: ServiceContext): void {
  const { limits } = service;
  app.post(
    '/v1/asr',
    { config: { inference: true }, bodyLimit: limits.asrAudioBytes + 64 * 1024, onRequest: acceptFormDataAlias },
    async (request, reply) => {
      return inServerSpan(request, 'asr', '/v1/asr', async (asr) => {
        const signal = abortOnClose(reply);
        const input = await readAsrRequest(request, limits.asrAudioBytes);
        const { hypothesis, durationMs, chargeMicros } = await context.with(asr.context, () => recognizeFile(service, request, input, asr, signal));
        const result: TranscriptionResult = {
          text: hypothesis.text,
          duration: Math.round(durationMs) / 1000,
          segments: input.ignoreTimestamps ? [] : segmentWords(hypothesis.words),
          language: input.language ?? 'en',
          ...(input.hints && hypothesis.expected !== undefined ? { expected: hypothesis.expected } : {}),
        };
        asr.end();
        reportCharge(reply, chargeMicros);
        return reply.send(result);
      });
    },
  );
}
