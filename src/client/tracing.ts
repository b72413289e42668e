import { context, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent } from '../tracing/index.js';

const tracer = trace.getTracer('shoal-client');

/** A client span plus the headers that carry it to the server. */
export interface CallTrace {
  span: Span;
  /** `traceparent` (and whatever else the installed propagator writes) for the outgoing request. */
  headers: Record<string, string>;
  end(error?: unknown): void;
}

function parentContext(explicit: string | undefined): Context {
  const active = context.active();
  const parsed = parseTraceparent(explicit);
  if (!parsed) return active;
  return trace.setSpanContext(active, {
    traceId: parsed.traceId,
    spanId: parsed.parentId,
    traceFlags: parsed.flags,
    isRemote: true,
  });
}

/**
 * Starts a client span for one call, child of the explicit `traceparent` when given, else of the active
 * OpenTelemetry context, and returns the propagation headers for it. With no propagator installed the
 * W3C `traceparent` is still written from the span's context when that context is valid.
 */
export function startCallTrace(name: string, attributes: Record<string, string | number>, explicit?: string): CallTrace {
  const parent = parentContext(explicit);
  const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
  const spanContext = trace.setSpan(parent, span);
  const headers: Record<string, string> = {};
  propagation.inject(spanContext, headers);
  if (!headers.traceparent) {
    const own = span.spanContext();
    if (trace.isSpanContextValid(own)) {
      headers.traceparent = formatTraceparent({ traceId: own.traceId, parentId: own.spanId, flags: own.traceFlags });
    } else if (explicit && parseTraceparent(explicit)) {
      headers.traceparent = explicit;
    }
  }
  let ended = false;
  return {
    span,
    headers,
    end(error?: unknown) {
      if (ended) return;
      ended = true;
      if (error !== undefined) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      }
      span.end();
    },
  };
}
