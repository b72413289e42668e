import { checkSampleRate, FORMAT_SPECS, type EncoderOptions } from '../../audio/index.js';
import { ServiceError, type Principal } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { parseOrThrow } from '../http/errors.js';
import type { ModelProfile } from './models.js';
import { ttsRequestSchema, type TtsRequest } from './schema.js';
import type { SynthesisSettings } from './synthesis.js';
import type { ChunkingOptions } from './text-plan.js';
import { resolveSpeakerVoices } from './voices.js';

/** A validated TTS request turned into what the synthesis and encoding steps need. */
export interface TtsPlan {
  request: TtsRequest;
  model: ModelProfile;
  encoder: EncoderOptions & { sampleRate: number };
  contentType: string;
  synthesis: SynthesisSettings;
  chunking: ChunkingOptions;
  /** Voice model ids used (their `task_count` is counted on success). */
  referenceIds: string[];
}

export interface PrepareInput {
  body: unknown;
  /** Whether the body came as MessagePack (inline references need it). */
  msgpack: boolean;
  principal: Principal;
  model: ModelProfile;
}

function asObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) throw new ServiceError(400, 'request body is empty; send a TTSRequest with at least text');
  if (typeof body !== 'object' || Array.isArray(body) || body instanceof Uint8Array) {
    throw new ServiceError(400, 'request body must be a TTSRequest object (a JSON object or MessagePack map)');
  }
  return body as Record<string, unknown>;
}

/** Validates a TTSRequest (400/422) and resolves its voices and output format, before any synthesis starts. */
export async function prepareTts(input: PrepareInput, service: ServiceContext): Promise<TtsPlan> {
  const body = asObject(input.body);
  if (body.text === undefined) throw new ServiceError(400, 'missing field text');
  if (!input.msgpack && Array.isArray(body.references) && body.references.length > 0) {
    throw new ServiceError(400, 'inline references need a MessagePack body (Content-Type: application/msgpack): audio is raw bytes');
  }
  const request = parseOrThrow(ttsRequestSchema, body);
  if (request.text.length > service.limits.maxTextCharacters) {
    throw new ServiceError(400, `text is ${request.text.length} characters; the limit is ${service.limits.maxTextCharacters}, split it into several requests`);
  }
  const sampleRate = checkSampleRate(request.format, request.sample_rate);
  const { voices, referenceIds } = await resolveSpeakerVoices(request, input.principal, service, input.model);
  const prosody = request.prosody ?? { speed: 1, volume: 0, normalize_loudness: true };
  return {
    request,
    model: input.model,
    encoder: {
      format: request.format,
      sampleRate,
      mp3Bitrate: request.mp3_bitrate,
      opusBitrate: request.opus_bitrate,
    },
    contentType: FORMAT_SPECS[request.format].contentType,
    synthesis: {
      voices,
      speed: prosody.speed,
      volumeDb: prosody.volume,
      normalizeLoudness: input.model.loudnessNormalization && prosody.normalize_loudness,
    },
    chunking: {
      chunkLength: request.chunk_length,
      minChunkLength: request.min_chunk_length,
      latency: request.latency,
      normalize: request.normalize,
    },
    referenceIds,
  };
}
