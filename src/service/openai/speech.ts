import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { AudioFormat } from '../../audio/index.js';
import { ServiceError } from '../accounts.js';
import { builtinVoices } from '../builtin-voices.js';
import type { ServiceContext } from '../context.js';
import { requireContentType } from '../http/content-type.js';
import { parseOrThrow } from '../http/errors.js';
import { principalOf } from '../http/gate.js';
import { inServerSpan } from '../http/tracing.js';
import type { DeliveredText } from '../tts/delivered-text.js';
import { encodeBytes } from '../tts/encoded-stream.js';
import { prepareTts, type TtsPlan } from '../tts/prepare.js';
import { settleOnClose, startSynthesis } from '../tts/routes.js';
import type { StreamAdmission } from '../tts/stream-admission.js';
import { speechProfile } from './models.js';
import { openAiVoices, voiceIdFor } from './voices.js';

/** OpenAI's output formats and what each is on this server; `null`: no encoder here, refused with a 400. */
const outputs: Record<string, { format: AudioFormat; sampleRate: number } | null> = {
  mp3: { format: 'mp3', sampleRate: 44100 },
  opus: { format: 'opus', sampleRate: 48000 },
  wav: { format: 'wav', sampleRate: 24000 },
  pcm: { format: 'pcm', sampleRate: 24000 },
  aac: null,
  flac: null,
};

const available = Object.keys(outputs).filter((name) => outputs[name]);

const speechSchema = z.object({
  model: z.string({ error: 'missing field model: send tts-1 (or gpt-4o-mini-tts)' }).min(1),
  input: z.string({ error: 'missing field input: the text to speak' }),
  voice: z.union([z.string().min(1), z.object({ id: z.string().min(1) }).transform((voice) => voice.id)], {
    error: 'missing field voice: send alloy, echo, fable, onyx, nova, shimmer (...) or a voice id of this server',
  }),
  response_format: z.enum(Object.keys(outputs), { error: `response_format must be one of ${Object.keys(outputs).join(', ')}` }).default('mp3'),
  speed: z
    .number({ error: 'speed must be a number' })
    .min(0.5, { error: 'speed must be in [0.5, 2.0] on this server' })
    .max(2, { error: 'speed must be in [0.5, 2.0] on this server' })
    .default(1),
  instructions: z.string({ error: 'instructions must be text' }).optional(),
  stream_format: z.enum(['audio', 'sse'], { error: 'stream_format must be audio or sse' }).default('audio'),
});

type SpeechRequest = z.output<typeof speechSchema>;

async function checkVoice(id: string, request: FastifyRequest, service: ServiceContext): Promise<void> {
  if (await service.voices.resolve(id, principalOf(request))) return;
  const names = Object.keys(openAiVoices).join(', ');
  const builtin = builtinVoices.map((voice) => voice.id).join(', ');
  throw new ServiceError(400, `voice '${id}' is not a voice you can use; send one of ${names}, a built-in voice (${builtin}) or one of your voice models`);
}

/** The OpenAI request as the service's TTS plan: same validation, voices, chunking and price as /v1/tts. */
async function planSpeech(request: FastifyRequest, service: ServiceContext): Promise<{ plan: TtsPlan; speech: SpeechRequest }> {
  requireContentType(request, ['application/json']);
  const speech = parseOrThrow(speechSchema, request.body ?? {});
  const model = speechProfile(speech.model);
  const output = outputs[speech.response_format];
  if (!output) {
    throw new ServiceError(400, `response_format ${speech.response_format} is not available on this server (no ${speech.response_format} encoder); use one of ${available.join(', ')}`);
  }
  if (speech.input.trim().length === 0) throw new ServiceError(400, 'input has nothing to speak; send some words');
  const voice = voiceIdFor(speech.voice);
  await checkVoice(voice, request, service);
  const body = {
    text: speech.input,
    reference_id: voice,
    format: output.format,
    sample_rate: output.sampleRate,
    prosody: { speed: speech.speed, volume: 0, normalize_loudness: true },
    latency: 'balanced',
  };
  const plan = await prepareTts({ body, msgpack: false, principal: principalOf(request), model }, service);
  return { plan, speech };
}

/** `speech.audio.delta` per encoded piece, then `speech.audio.done` with the billed characters as usage. */
async function* speechEvents(bytes: AsyncIterable<Uint8Array>, delivered: DeliveredText): AsyncGenerator<string> {
  for await (const piece of bytes) yield `data: ${JSON.stringify({ type: 'speech.audio.delta', audio: Buffer.from(piece).toString('base64') })}\n\n`;
  const characters = delivered.characters;
  const usage = { input_tokens: characters, output_tokens: 0, total_tokens: characters };
  yield `data: ${JSON.stringify({ type: 'speech.audio.done', usage })}\n\n`;
}

/**
 * POST /v1/audio/speech: OpenAI's speech request on the service's synthesis, streamed as it is synthesised
 * and billed as /v1/tts is (what was sent), under the same cap on responses synthesised at once.
 */
export function registerSpeechRoute(app: FastifyInstance, service: ServiceContext, admission: StreamAdmission): void {
  app.post('/v1/audio/speech', { config: { inference: true }, bodyLimit: service.limits.ttsBodyBytes }, async (request, reply) => {
    return inServerSpan(request, 'tts', '/v1/audio/speech', async (span) => {
      const { plan, speech } = await planSpeech(request, service);
      const started = await startSynthesis(plan, request, reply, service, span, admission);
      settleOnClose(request, reply, service, started, span);
      const bytes = encodeBytes(started.source, started.encoder);
      if (speech.stream_format === 'sse') {
        reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache');
        return reply.send(Readable.from(speechEvents(bytes, started.delivered), { objectMode: false }));
      }
      reply.header('content-type', started.plan.contentType);
      return reply.send(Readable.from(bytes, { objectMode: false }));
    });
  });
}
