import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServiceError } from '../accounts.js';
import { decodeMsgpack, type MsgpackLimits } from './msgpack.js';

export const msgpackTypes = ['application/msgpack', 'application/x-msgpack'];

/** The media type of a request without parameters, lower-cased ('' when absent). */
export function mediaType(request: FastifyRequest): string {
  const header = request.headers['content-type'] ?? '';
  return header.split(';')[0]!.trim().toLowerCase();
}

export function isMsgpack(request: FastifyRequest): boolean {
  return msgpackTypes.includes(mediaType(request));
}

/** 415 unless the request's content type is one the route accepts. */
export function requireContentType(request: FastifyRequest, accepted: readonly string[]): void {
  const type = mediaType(request);
  if (accepted.includes(type)) return;
  const got = type ? `Content-Type ${type} is not accepted` : 'the request has no Content-Type';
  throw new ServiceError(415, `${got}; send ${accepted.join(' or ')}`);
}

/** Parses MessagePack bodies (shape-checked against the limits before decoding). */
export function installMsgpackParser(app: FastifyInstance, limits: MsgpackLimits): void {
  app.addContentTypeParser(msgpackTypes, { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      const bytes = body as Buffer;
      if (bytes.length === 0) throw new ServiceError(400, 'request body is empty; send a MessagePack map');
      done(null, decodeMsgpack(bytes, limits));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** The decoded body as a plain object, or a 400 saying what was expected. */
export function bodyObject(request: FastifyRequest, what: string): Record<string, unknown> {
  const body = request.body;
  if (body === undefined || body === null) throw new ServiceError(400, `request body is empty; send ${what}`);
  if (typeof body !== 'object' || Array.isArray(body) || body instanceof Uint8Array) {
    throw new ServiceError(400, `request body must be ${what}`);
  }
  return body as Record<string, unknown>;
}
