import type { FastifyInstance } from 'fastify';
import { context } from '@opentelemetry/api';
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { encodeWav } from '../../audio/index.js';
import { seededRandom } from '../../audio/seeded-random.js';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { bodyObject, requireContentType } from '../http/content-type.js';
import { parseOrThrow } from '../http/errors.js';
import { reserveFor } from '../http/gate.js';
import { inServerSpan } from '../http/tracing.js';
import { designCandidate, readInstruction } from './instruction.js';
import type { VoiceDesignCandidate } from '../../speech/index.js';
import { spanAttributes } from '../../tracing/index.js';

export const defaults = {
  n: 1,
  speed: 1,
  numStep: 32,
  guidanceScale: 3,
  instructGuidanceScale: 3,
  language: 'en',
  previewText: 'Hello! This is a preview of the voice you described. How does it sound to you?',
};

const voiceDesignSchema = z.strictObject({
  instruction: z
    .string({ error: 'instruction must be a string' })
    .min(1, { error: 'instruction must be 1 to 2000 characters' })
    .max(2000, { error: 'instruction must be 1 to 2000 characters' }),
  reference_text: z.string({ error: 'reference_text must be a string' }).max(150, { error: 'reference_text must be at most 150 characters' }).nullish(),
  language: z.string({ error: 'language must be a BCP-47 tag such as en' }).nullish(),
  n: z.int({ error: 'n must be an integer' }).min(1, { error: 'n must be 1 to 4' }).max(4, { error: 'n must be 1 to 4' }).nullish(),
  speed: z.number({ error: 'speed must be a number' }).gt(0, { error: 'speed must be greater than 0' }).max(3, { error: 'speed must be at most 3' }).nullish(),
  num_step: z.int({ error: 'num_step must be an integer' }).min(1, { error: 'num_step must be 1 to 128' }).max(128, { error: 'num_step must be 1 to 128' }).nullish(),
  guidance_scale: z.number({ error: 'guidance_scale must be a number' }).min(0, { error: 'guidance_scale must be at least 0' }).nullish(),
  instruct_guidance_scale: z.number({ error: 'instruct_guidance_scale must be a number' }).min(0, { error: 'instruct_guidance_scale must be at least 0' }).nullish(),
  seed: z.int({ error: 'seed must be an integer' }).nullish(),
});

export const voiceDesignModel = 'voice-design-1';

/** POST /v1/voice-design: stateless; `n` candidate voices speaking the preview text, billed once. */
export function registerVoiceDesignRoute(app: FastifyInstance, service: ServiceContext): void {
  app.post('/v1/voice-design', { config: { inference: true }, bodyLimit: service.limits.voiceDesignBodyBytes }, async (request, reply) => {
    return inServerSpan(request, 'voice-design', '/v1/voice-design', async (design) => {
      requireContentType(request, ['application/json']);
      const model = request.headers.model;
      if (model !== voiceDesignModel) {
        throw new ServiceError(400, `${model ? `unknown model '${String(model)}'` : 'missing model header'}; voice design needs the header model: ${voiceDesignModel}`);
      }
      const body = parseOrThrow(voiceDesignSchema, bodyObject(request, 'a JSON object {instruction, ...}'));
      const language = body.language ?? defaults.language;
      if (!/^en(-|$)/i.test(language)) {
        throw new ServiceError(400, `language '${language}' is not supported by this server's voices; use en`);
      }
      const seed = body.seed ?? randomInt(0, 2 ** 31);
      const guidance = body.guidance_scale ?? defaults.guidanceScale;
      const options = {
        traitStrength: Math.min(1.5, (body.instruct_guidance_scale ?? defaults.instructGuidanceScale) / 3),
        spreadSemitones: Math.max(0.5, 2.5 / (1 + guidance / 3)),
        speed: body.speed ?? defaults.speed,
      };
      const traits = readInstruction(body.instruction);
      const random = seededRandom(seed);
      const text = body.reference_text?.trim() || defaults.previewText;
      const engine = service.engines.tts();
      const candidates: VoiceDesignCandidate[] = [];
      const reservation = await reserveFor(service.accounts, request, { kind: 'voice-design' });
      await context.with(design.context, async () => {
        for (let index = 0; index < (body.n ?? defaults.n); index++) {
          const voice = designCandidate(traits, random, index, options);
          const audio = await engine.synthesize(text, voice);
          candidates.push({
            id: `vd-${seed}-${index}-${voice.voice}-${voice.pitchHz}-${voice.rate}`,
            index,
            audio_base64: Buffer.from(encodeWav(audio.samples, audio.sampleRate)).toString('base64'),
            sample_rate: audio.sampleRate,
            duration_ms: Math.round((audio.samples.length * 1000) / audio.sampleRate),
            text,
            instruct: body.instruction,
            language,
          });
        }
      }).finally(() => reservation.settle(candidates.length === (body.n ?? defaults.n) ? { kind: 'voice-design' } : null));
      design.span.setAttributes({ [spanAttributes.voiceDesignCandidates]: candidates.length, [spanAttributes.voiceDesignSeed]: seed });
      design.end();
      return reply.send({ candidates });
    });
  });
}
