import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ServiceError } from '../accounts.js';
import { bodyObject, isMsgpack, mediaType } from '../http/content-type.js';
import { parseOrThrow } from '../http/errors.js';
import { hintsSchema, type Hints } from './hints.js';

export interface AsrRequest {
  audio: Uint8Array;
  language?: string;
  ignoreTimestamps: boolean;
  /** Shoal extension: what the speaker is expected to say. */
  hints?: Hints;
}

const booleanField = z.union([z.boolean(), z.enum(['true', 'false', '1', '0', 'True', 'False'])], {
  error: 'ignore_timestamps must be true or false',
});

const fieldsSchema = z.object({
  language: z.string({ error: 'language must be a string such as en' }).min(1, { error: 'language must not be empty' }).max(35).nullish(),
  ignore_timestamps: booleanField.nullish(),
  hints: hintsSchema.nullish(),
});

export function tooLarge(limitBytes: number): ServiceError {
  const mb = Math.round(limitBytes / (1024 * 1024));
  return new ServiceError(413, `audio file is larger than ${mb} MB; split the recording into smaller files and offset the timestamps`);
}

function toBoolean(value: z.output<typeof booleanField> | null | undefined): boolean {
  if (value === undefined || value === null) return true;
  return value === true || value === 'true' || value === 'True' || value === '1';
}

/** The fields of a multipart body; the file part named `fileField` becomes that field's bytes, other files are dropped. */
export async function readMultipart(
  request: FastifyRequest,
  limitBytes: number,
  fileField = 'audio',
  partLimits: { fields?: number; parts?: number } = {},
): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = {};
  try {
    for await (const part of request.parts({ limits: { fileSize: limitBytes, files: 1, ...partLimits } })) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        if (part.fieldname === fileField) fields[fileField] = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      } else {
        const previous = fields[part.fieldname];
        // A repeated field (e.g. `timestamp_granularities[]`) collects its values.
        if (previous === undefined) fields[part.fieldname] = part.value;
        else fields[part.fieldname] = [...(Array.isArray(previous) ? previous : [previous]), part.value];
      }
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(limitBytes);
    if (code === 'FST_FILES_LIMIT') throw new ServiceError(400, 'send exactly one audio file per request');
    if (error instanceof ServiceError) throw error;
    throw new ServiceError(400, `multipart body could not be read: ${(error as Error).message}`);
  }
  return fields;
}

/** Reads `{audio, language?, ignore_timestamps?}` from a multipart or MessagePack body. */
export async function readAsrRequest(request: FastifyRequest, limitBytes: number): Promise<AsrRequest> {
  const type = mediaType(request);
  let fields: Record<string, unknown>;
  if (type === 'multipart/form-data') fields = await readMultipart(request, limitBytes);
  else if (isMsgpack(request)) fields = bodyObject(request, 'a MessagePack map {audio, language?, ignore_timestamps?}');
  else throw new ServiceError(415, `${type ? `Content-Type ${type} is not accepted` : 'the request has no Content-Type'}; send multipart/form-data or application/msgpack`);
  const audio = fields.audio;
  if (audio === undefined || audio === null) throw new ServiceError(400, 'missing field audio: send the audio file as the audio field');
  if (!(audio instanceof Uint8Array)) {
    throw new ServiceError(400, 'audio must be the file bytes (a multipart file part, or MessagePack bin)');
  }
  if (audio.byteLength > limitBytes) throw tooLarge(limitBytes);
  const parsed = parseOrThrow(fieldsSchema, { language: fields.language, ignore_timestamps: fields.ignore_timestamps, hints: fields.hints });
  return {
    audio,
    language: parsed.language ?? undefined,
    ignoreTimestamps: toBoolean(parsed.ignore_timestamps),
    ...(parsed.hints ? { hints: parsed.hints } : {}),
  };
}
