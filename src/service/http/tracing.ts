import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, defaultTextMapGetter, trace } from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { newTraceId } from '../../tracing/index.js';

const propagator = new W3CTraceContextPropagator();

/** The trace context of an incoming `traceparent` header; a missing or invalid one gives the root context (a new trace). */
export function extractTraceContext(headers: IncomingHttpHeaders): Context {
  return propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
}

export function serviceTracer(): Tracer {
  return trace.getTracer('shoal.service');
}

export interface ServerSpan {
  span: Span;
  /** The context to run the work in, with `span` active. */
  context: Context;
  /** The trace id for logs: the span's, else the incoming one, else a fresh one when no tracer is installed. */
  traceId: string;
  end(error?: unknown): void;
}

/** Starts a server span continuing the incoming trace (or a new one). */
export function startServerSpan(name: string, parent: Context, attributes: Attributes = {}): ServerSpan {
  const span = serviceTracer().startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  const spanContext = span.spanContext();
  const incoming = trace.getSpanContext(parent);
  const traceId = spanContext.traceId !== '00000000000000000000000000000000'
    ? spanContext.traceId
    : (incoming?.traceId ?? newTraceId());
  let ended = false;
  return {
    span,
    context: trace.setSpan(parent, span),
    traceId,
    end(error?: unknown) {
      if (ended) return;
      ended = true;
      if (error !== undefined) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        if (error instanceof Error) span.recordException(error);
      }
      span.end();
    },
  };
}

/**
 * Runs a route's handler in a server span of its own that continues the request's trace (the request's logs then
 * carry its trace id). A thrown error ends the span; otherwise the handler, or the work it leaves running, ends it.
 */
export async function inServerSpan<T>(request: FastifyRequest, name: string, route: string, handler: (span: ServerSpan) => Promise<T>): Promise<T> {
  const span = startServerSpan(name, request.traceContext, { 'http.route': route });
  request.traceId = span.traceId;
  try {
    return await handler(span);
  } catch (error) {
    span.end(error);
    throw error;
  }
}

/** Runs `work` inside a child span of the active context. */
export async function withChildSpan<T>(name: string, parent: Context, work: () => Promise<T>, attributes: Attributes = {}): Promise<T> {
  const span = serviceTracer().startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}
