import type { FastifyReply, FastifyRequest } from 'fastify';
import { countRefusal } from '../../metrics/index.js';
import { describeError, RequestValidationError } from '../http/errors.js';

/** The body of every error on the OpenAI-compatible routes, as the OpenAI API answers. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** OpenAI's `type` and `code` for a status (the SDKs pick their error class from the status alone). */
function kindOf(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 402) return { type: 'insufficient_quota', code: 'insufficient_quota' };
  if (status === 404) return { type: 'invalid_request_error', code: 'not_found' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status === 503) return { type: 'server_error', code: 'service_unavailable' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}

export function openAiErrorBody(status: number, message: string, param: string | null = null, code?: string): OpenAiErrorBody {
  const kind = kindOf(status);
  return { error: { message, type: kind.type, param, code: code ?? kind.code } };
}

/**
 * The error handler of the OpenAI-compatible routes: the same statuses and messages as the rest of the
 * service, in OpenAI's `{"error": {message, type, param, code}}`. A field that fails validation is a 400
 * naming the field in `param` (OpenAI's status for it), not the native routes' 422 array.
 */
export function sendOpenAiError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof RequestValidationError) {
    countRefusal(400);
    const first = error.issues[0];
    const message = error.issues.map((issue) => issue.msg).join('; ');
    return reply.code(400).send(openAiErrorBody(400, message, first ? first.loc.slice(1).join('.') || null : null));
  }
  const { status, message } = describeError(error, request, reply);
  countRefusal(status);
  return reply.code(status).send(openAiErrorBody(status, message));
}
