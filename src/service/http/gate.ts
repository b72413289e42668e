import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { trace, type Context } from '@opentelemetry/api';
import { newTraceId } from '../../tracing/index.js';
import { ServiceError } from '../accounts.js';
import type { AccountGate, Principal, Reservation, Usage } from '../accounts.js';
import { formatMicros } from '../store/ids.js';
import { extractTraceContext } from './tracing.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; set on every route by the gate before any handler runs. */
    principal: Principal | null;
    /** Trace context from the request's `traceparent` (root context when missing or invalid). */
    traceContext: Context;
    /** Trace id for the request log line; set by routes that start a server span. */
    traceId: string | undefined;
  }
  interface FastifyContextConfig {
    /** Inference routes check credit before any work starts (402) and reserve their price before the work. */
    inference?: boolean;
    /** Health and metrics probes: answered without an API key. */
    probe?: boolean;
  }
}

/** The API key of an `Authorization: Bearer <key>` header (`Token <key>` too, the scheme Deepgram clients send). */
export function bearerKey(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value ? /^(?:Bearer|Token)\s+(.+)$/i.exec(value.trim()) : null;
  return match ? match[1]!.trim() : undefined;
}

export const unauthorizedMessage = 'Invalid Token: send Authorization: Bearer <API key> with a valid key';

/**
 * The hook every route runs before its handler: 401 without a valid bearer key, 402 on inference routes
 * without any credit (the price itself is reserved by the route once it is known), 429 over the rate (the concurrency slot is released when the response closes).
 */
export function installGate(app: FastifyInstance, accounts: AccountGate): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('traceContext', undefined as unknown as Context);
  app.decorateRequest('traceId', undefined);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    request.traceContext = extractTraceContext(request.headers);
    request.traceId = trace.getSpanContext(request.traceContext)?.traceId ?? newTraceId();
    if (request.routeOptions.config?.probe) return;
    const principal = await accounts.authenticate(bearerKey(request.headers.authorization));
    if (!principal) throw new ServiceError(401, unauthorizedMessage);
    request.principal = principal;
    if (request.routeOptions.config?.inference) await accounts.ensureCredit(principal);
    const release = await accounts.admit(principal, 'request');
    reply.raw.once('close', release);
  });
}

/** The authenticated caller of a request that passed the gate. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ServiceError(401, unauthorizedMessage);
  return request.principal;
}

/** The response header naming what a request is billed, in credits (absent where requests are not billed). */
export const chargeHeader = 'shoal-charge';

/** A charge in micro-credits as the service reports it: credits, as a decimal string (the wallet's `credit` format). */
export function chargeText(micros: number | null): string | undefined {
  return micros === null ? undefined : formatMicros(micros);
}

/** Sets the charge header when the request is billed. */
export function reportCharge(reply: FastifyReply, micros: number | null): void {
  const text = chargeText(micros);
  if (text !== undefined) void reply.header(chargeHeader, text);
}

/** Holds the price of a request's work before it starts (402 when the balance cannot cover it). */
export function reserveFor(accounts: AccountGate, request: FastifyRequest, usage: Usage): Promise<Reservation> {
  return accounts.reserve(principalOf(request), usage, request.id);
}
