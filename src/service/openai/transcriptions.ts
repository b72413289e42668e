import type { FastifyInstance, FastifyRequest } from 'fastify';
import { context } from '@opentelemetry/api';
import { z } from 'zod';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { mediaType } from '../http/content-type.js';
import { parseOrThrow } from '../http/errors.js';
import { inServerSpan } from '../http/tracing.js';
import type { Hints } from '../asr/hints.js';
import { abortOnClose, recognizeFile } from '../asr/recognize.js';
import { reportCharge } from '../http/gate.js';
import { readMultipart, tooLarge } from '../asr/request.js';
import { acceptFormDataAlias } from '../asr/route.js';
import { checkTranscriptionModel } from './models.js';
import { formatTranscript, responseFormats, transcriptEvents, type Transcript } from './transcript-formats.js';

const booleanText = z.enum(['true', 'false'], { error: 'stream must be true or false' }).transform((value) => value === 'true');

const granularity = z.enum(['word', 'segment'], { error: 'timestamp_granularities[] must be word or segment' });

const fieldsSchema = z.object({
  model: z.string({ error: 'missing field model: send whisper-1 (or gpt-4o-transcribe)' }).min(1),
  language: z.string({ error: 'language must be an ISO-639-1 code such as en' }).min(1).max(35).optional(),
  prompt: z.string({ error: 'prompt must be text' }).max(10_000, { error: 'prompt must be at most 10,000 characters' }).optional(),
  response_format: z.enum(responseFormats, { error: `response_format must be one of ${responseFormats.join(', ')}` }).default('json'),
  temperature: z.coerce
    .number({ error: 'temperature must be a number from 0 to 1' })
    .min(0, { error: 'temperature must be in [0, 1]' })
    .max(1, { error: 'temperature must be in [0, 1]' })
    .default(0),
  timestamp_granularities: z.array(granularity).max(2).default([]),
  stream: booleanText.default(false),
});

/** More fields than the native ASR route: the SDKs send array fields one part per entry. */
const partLimits = { fields: 24, parts: 25 };

/** Words of the prompt (what OpenAI's `prompt` is for: names and terms to expect), as recognition hints. */
export function promptHints(prompt: string): Hints | undefined {
  const phrases = prompt
    .split(/[.!?\n]+/)
    .map((phrase) => phrase.trim().slice(0, 200))
    .filter((phrase) => phrase.length > 0)
    .slice(0, 500);
  const keywords = [...new Set(prompt.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [])].slice(0, 500);
  if (phrases.length === 0 || keywords.length === 0) return undefined;
  return [{ kind: 'phrases', phrases, keywords }];
}

async function readFields(request: FastifyRequest, limitBytes: number) {
  const type = mediaType(request);
  if (type !== 'multipart/form-data') {
    throw new ServiceError(415, `${type ? `Content-Type ${type} is not accepted` : 'the request has no Content-Type'}; send multipart/form-data with the audio as the file field`);
  }
  const fields = await readMultipart(request, limitBytes, 'file', partLimits);
  const file = fields.file;
  if (!(file instanceof Uint8Array)) throw new ServiceError(400, 'missing field file: send the audio as the file part of the form');
  if (file.byteLength > limitBytes) throw tooLarge(limitBytes);
  const listed = fields['timestamp_granularities[]'] ?? fields.timestamp_granularities;
  const parsed = parseOrThrow(fieldsSchema, {
    ...fields,
    timestamp_granularities: listed === undefined ? undefined : Array.isArray(listed) ? listed : [listed],
  });
  checkTranscriptionModel(parsed.model);
  return { file, ...parsed };
}

/**
 * POST /v1/audio/transcriptions: OpenAI's transcription request on the service's recogniser, billed as
 * `/v1/asr` is (the same reservation by the audio's duration, settled once the transcript exists).
 */
export function registerTranscriptionRoute(app: FastifyInstance, service: ServiceContext): void {
  const { limits } = service;
  app.post(
    '/v1/audio/transcriptions',
    { config: { inference: true }, bodyLimit: limits.asrAudioBytes + 64 * 1024, onRequest: acceptFormDataAlias },
    async (request, reply) => {
      return inServerSpan(request, 'asr', '/v1/audio/transcriptions', async (span) => {
        const signal = abortOnClose(reply);
        const input = await readFields(request, limits.asrAudioBytes);
        const hints = input.prompt ? promptHints(input.prompt) : undefined;
        const { hypothesis, durationMs, chargeMicros } = await context.with(span.context, () =>
          recognizeFile(service, request, { audio: input.file, ...(input.language ? { language: input.language } : {}), ...(hints ? { hints } : {}) }, span, signal),
        );
        const transcript: Transcript = {
          text: hypothesis.text,
          words: hypothesis.words,
          durationMs,
          language: input.language ?? 'en',
          temperature: input.temperature,
        };
        span.end();
        reportCharge(reply, chargeMicros);
        if (input.stream) {
          return reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache').send(transcriptEvents(transcript));
        }
        const granularities = { words: input.timestamp_granularities.includes('word'), segments: input.timestamp_granularities.includes('segment') };
        const { contentType, body } = formatTranscript(transcript, input.response_format, granularities);
        return reply.header('content-type', contentType).send(body);
      });
    },
  );
}
