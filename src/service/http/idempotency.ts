import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../accounts.js';
import type { IdempotencyStore, StoredResponse } from '../store/idempotency-store.js';

export const idempotencyLimits = {
  /** A response body larger than this is not kept: a retry of its key is answered 409 instead of replayed, in bytes. */
  keptBodyBytes: 8 * 1024 * 1024,
};

/** Statuses a retry may mend (no credit yet, over the rate, a server fault): their key is given back, not kept. */
const retryable = (status: number) => status >= 500 || status === 401 || status === 402 || status === 409 || status === 429;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on a POST that carries an `Idempotency-Key` and claimed it. */
    idempotency: { scope: string; key: string } | undefined;
  }
}

function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header[0] : header;
  if (!key || !/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new ServiceError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice)');
  }
  return key;
}

/** What identifies a request's input: its route, content type and length, and its parsed body where there is one. */
function fingerprintOf(request: FastifyRequest): string {
  const hash = createHash('sha256');
  hash.update(`${request.method} ${request.url}\n${request.headers['content-type'] ?? ''}\n${request.headers['content-length'] ?? ''}\n`);
  const body = request.body;
  if (body instanceof Uint8Array) hash.update(body);
  else if (body !== undefined) hash.update(JSON.stringify(body, (_key, value: unknown) => (value instanceof Uint8Array ? createHash('sha256').update(value).digest('hex') : value)));
  return hash.digest('hex');
}

/**
 * `Idempotency-Key` on POST requests: the first request with a key runs and its response is kept (24 h); a retry
 * with the same key and input is answered with that response (header `Idempotent-Replayed: true`), is not run
 * again and is not billed, on whichever instance of a fleet it arrives. A retry while the first still runs gets
 * 409; the same key with other input, 422. Responses a retry may mend (5xx, 401, 402, 409, 429) and requests the
 * client abandoned give their key back.
 */
export function installIdempotency(app: FastifyInstance, store: IdempotencyStore): void {
  app.decorateRequest('idempotency', undefined);
  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || !request.principal) return;
    const key = keyOf(request);
    if (key === undefined) return;
    const scope = request.principal.userId;
    const claim = await store.claim(scope, key, fingerprintOf(request));
    switch (claim.state) {
      case 'claimed':
        request.idempotency = { scope, key };
        watch(request, reply, store);
        return;
      case 'running':
        throw new ServiceError(409, 'a request with this Idempotency-Key is still running; retry once it has finished', 1);
      case 'mismatch':
        throw new ServiceError(422, 'this Idempotency-Key was used with a different request; use a new key for new input');
      case 'done':
        if (!claim.response.body) {
          throw new ServiceError(409, 'the request with this Idempotency-Key was served already; its response was too large to keep for a replay');
        }
        reply.code(claim.response.status).header('idempotent-replayed', 'true');
        if (claim.response.contentType) reply.header('content-type', claim.response.contentType);
        return reply.send(Buffer.from(claim.response.body));
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const claimed = request.idempotency;
    if (!claimed || retryable(reply.statusCode)) return payload;
    const kept: Buffer[] = [];
    let bytes = 0;
    const keep = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buffer.length;
      if (bytes <= idempotencyLimits.keptBodyBytes) kept.push(buffer);
    };
    responses.set(request, () => ({
      status: reply.statusCode,
      contentType: String(reply.getHeader('content-type') ?? ''),
      body: bytes <= idempotencyLimits.keptBodyBytes ? Buffer.concat(kept) : null,
    }));
    if (payload instanceof Readable) {
      return payload.pipe(
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            keep(chunk);
            done(null, chunk);
          },
        }),
      );
    }
    if (typeof payload === 'string' || payload instanceof Uint8Array) keep(Buffer.from(payload as Uint8Array));
    return payload;
  });
}

const responses = new WeakMap<FastifyRequest, () => StoredResponse>();

/** Keeps the response once it has been sent whole; gives the key back when it was not (an error, a client gone). */
function watch(request: FastifyRequest, reply: FastifyReply, store: IdempotencyStore): void {
  const { scope, key } = request.idempotency!;
  let finished = false;
  reply.raw.once('finish', () => (finished = true));
  reply.raw.once('close', () => {
    const response = responses.get(request);
    const outcome = finished && response ? store.complete(scope, key, response()) : store.release(scope, key);
    outcome.catch((error: unknown) => request.log.warn({ err: error }, 'could not record the outcome of an idempotent request'));
  });
}
