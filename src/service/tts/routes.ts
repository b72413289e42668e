import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { AsyncStreamingEncoder } from '../../audio/index.js';
import { openEncoder } from '../../engines/index.js';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { isMsgpack, msgpackTypes, requireContentType } from '../http/content-type.js';
import type { Reservation } from '../accounts.js';
import { principalOf, reportCharge, reserveFor } from '../http/gate.js';
import { inServerSpan, type ServerSpan } from '../http/tracing.js';
import { chunkAlignment } from './alignment.js';
import { DeliveredText } from './delivered-text.js';
import { encodeBytes, encodeChunks, type ChunkSource, type EncodedChunk } from './encoded-stream.js';
import { modelForHttp } from './models.js';
import { prepareTts, type TtsPlan } from './prepare.js';
import { synthesizeChunks, workingSampleRate, type SynthesizedChunk } from './synthesis.js';
import { planChunks } from './text-plan.js';
import { spanAttributes } from '../../tracing/index.js';
import { StreamAdmission } from './stream-admission.js';

const ttsContentTypes = ['application/json', ...msgpackTypes];

export interface StartedSynthesis {
  plan: TtsPlan;
  source: ChunkSource;
  encoder: AsyncStreamingEncoder;
  reservation: Reservation;
  delivered: DeliveredText;
}

/** Validates a native TTS request (content type, `model` header, TTSRequest body) into a plan. */
function planNativeTts(request: FastifyRequest, service: ServiceContext): Promise<TtsPlan> {
  requireContentType(request, ttsContentTypes);
  const model = modelForHttp(request.headers.model);
  return prepareTts({ body: request.body, msgpack: isMsgpack(request), principal: principalOf(request), model }, service);
}

/**
 * Plans the chunks, reserves the price and synthesises the first chunk; resolves with the encoded chunks once
 * the first one exists, so every error up to then is still a proper status (and bills nothing). Synthesis
 * stops when the client goes away.
 */
export async function startSynthesis(
  plan: TtsPlan,
  request: FastifyRequest,
  reply: FastifyReply,
  service: ServiceContext,
  span: ServerSpan,
  admission: StreamAdmission,
): Promise<StartedSynthesis> {
  const { model } = plan;
  const { chunks, characters } = planChunks(plan.request.text, plan.chunking, plan.synthesis.voices.length);
  if (chunks.length === 0) throw new ServiceError(400, 'text has nothing to speak; send some words');
  span.span.setAttributes({ [spanAttributes.ttsModel]: model.id, [spanAttributes.ttsFormat]: plan.encoder.format, [spanAttributes.ttsChunks]: chunks.length });
  admission.admit(reply);
  const reservation = await reserveFor(service.accounts, request, { kind: 'tts', characters });
  const delivered = new DeliveredText(chunks, characters);
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client closed the connection'));
  });
  try {
    const synthesis = synthesizeChunks(service.engines.tts(), chunks, plan.synthesis, { signal: controller.signal, trace: span.context });
    const encoder = await openEncoder({ ...plan.encoder, inputSampleRate: workingSampleRate });
    let first: IteratorResult<SynthesizedChunk>;
    try {
      first = await synthesis.next();
    } catch (error) {
      encoder.close();
      throw error;
    }
    const source: ChunkSource = { first, rest: synthesis, count: chunks.length, onSent: (chunk) => delivered.sent(chunk.chunk) };
    // What the response is billed when it is received whole (a response cut short is billed for what was sent).
    reportCharge(reply, reservation.quote({ kind: 'tts', characters }));
    return { plan, source, encoder, reservation, delivered };
  } catch (error) {
    await reservation.settle(null);
    throw error;
  }
}

/**
 * When the response closes: bills the characters whose audio was sent (all of them when it finished) and
 * counts voice model uses of a finished response; ends the span either way.
 */
export function settleOnClose(request: FastifyRequest, reply: FastifyReply, service: ServiceContext, started: StartedSynthesis, span: ServerSpan): void {
  const { plan, reservation, delivered } = started;
  reply.raw.once('close', () => {
    const finished = reply.raw.writableFinished;
    span.end(finished ? undefined : new Error('response not completed'));
    reservation
      .settle(delivered.characters > 0 ? { kind: 'tts', characters: delivered.characters } : null)
      .then(() => (finished ? Promise.all(plan.referenceIds.map((id) => service.voices.recordUse?.(id))) : undefined))
      .catch((error: unknown) => request.log.error({ err: error }, 'billing a TTS request failed'));
  });
}

async function* timestampEvents(chunks: AsyncGenerator<EncodedChunk>): AsyncGenerator<string> {
  for await (const encoded of chunks) {
    const chunkMs = (encoded.chunk.samples.length * 1000) / workingSampleRate;
    const event = {
      audio_base64: Buffer.from(encoded.bytes).toString('base64'),
      content: encoded.chunk.chunk.text,
      alignment: chunkAlignment(encoded.chunk.words, chunkMs),
      chunk_seq: encoded.seq,
      chunk_audio_offset_sec: Math.round(encoded.offsetMs) / 1000,
    };
    yield `data: ${JSON.stringify(event)}\n\n`;
  }
}

/** POST /v1/tts (chunked audio) and POST /v1/tts/stream/with-timestamp (SSE with word alignment). */
export function registerTtsRoutes(app: FastifyInstance, service: ServiceContext, admission: StreamAdmission): void {
  const routeOptions = { config: { inference: true }, bodyLimit: service.limits.ttsBodyBytes };

  app.post('/v1/tts', routeOptions, async (request, reply) => {
    return inServerSpan(request, 'tts', '/v1/tts', async (span) => {
      const started = await startSynthesis(await planNativeTts(request, service), request, reply, service, span, admission);
      settleOnClose(request, reply, service, started, span);
      reply.header('content-type', started.plan.contentType);
      return reply.send(Readable.from(encodeBytes(started.source, started.encoder), { objectMode: false }));
    });
  });

  app.post('/v1/tts/stream/with-timestamp', routeOptions, async (request, reply) => {
    return inServerSpan(request, 'tts.stream', '/v1/tts/stream/with-timestamp', async (span) => {
      const started = await startSynthesis(await planNativeTts(request, service), request, reply, service, span, admission);
      settleOnClose(request, reply, service, started, span);
      reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache');
      return reply.send(Readable.from(timestampEvents(encodeChunks(started.source, started.encoder)), { objectMode: false }));
    });
  });
}
