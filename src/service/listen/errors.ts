import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../accounts.js';
import { sendError, statusOf } from '../http/errors.js';

/** Deepgram's `err_code` for each status Shoal answers. */
const errorCodes: Record<number, string> = {
  400: 'Bad Request',
  401: 'INVALID_AUTH',
  402: 'ASR_PAYMENT_REQUIRED',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

/** Deepgram's error body: `{err_code, err_msg, request_id}`. */
export function deepgramErrorBody(status: number, message: string, requestId: string): { err_code: string; err_msg: string; request_id: string } {
  return { err_code: errorCodes[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'Bad Request'), err_msg: message, request_id: requestId };
}

/**
 * The prerecorded route's error handler: the service's own handler decides status, headers and message (and
 * logs server failures), then the body is put in Deepgram's shape.
 */
export function sendDeepgramError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = statusOf(error);
  if (status >= 500 || !(error instanceof ServiceError)) return sendError(error, request, reply);
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.ceil(error.retryAfterSeconds)));
  return reply.code(status).header('dg-error', headerSafe(error.message)).send(deepgramErrorBody(status, error.message, request.id));
}

/** A message as a header value: printable ASCII only. */
export function headerSafe(message: string): string {
  return message.replace(/[^\x20-\x7e]/g, '?');
}
