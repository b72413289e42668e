import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, trace, type TraceFlags } from '@opentelemetry/api';
import { parseTraceParent, W3CTraceContextPropagator } from '@opentelemetry/core';

/** A parsed W3C `traceparent`. */
export interface TraceParent {
  traceId: string;
  parentId: string;
  flags: number;
}

const propagator = new W3CTraceContextPropagator();

/** Parses a `traceparent` header (OpenTelemetry's W3C parser); null when it is missing or invalid. */
export function parseTraceparent(header: string | undefined | null): TraceParent | null {
  if (!header) return null;
  const parsed = parseTraceParent(header.trim());
  return parsed ? { traceId: parsed.traceId, parentId: parsed.spanId, flags: parsed.traceFlags } : null;
}

/** The `traceparent` header for these ids, as OpenTelemetry's W3C propagator writes it. */
export function formatTraceparent(parent: TraceParent): string {
  const carrier: Record<string, string> = {};
  const spanContext = { traceId: parent.traceId, spanId: parent.parentId, traceFlags: parent.flags as TraceFlags, isRemote: true };
  propagator.inject(trace.setSpanContext(ROOT_CONTEXT, spanContext), carrier, { set: (c, key, value) => (c[key] = value) });
  const header = carrier['traceparent'];
  if (!header) throw new RangeError(`not a valid trace context: ${JSON.stringify(parent)}`);
  return header;
}

export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}

export function newSpanId(): string {
  return randomBytes(8).toString('hex');
}

/** A fresh `traceparent` whose sampled flag is off: work under it (warm-up requests) records no spans. */
export function unsampledTraceparent(): string {
  return formatTraceparent({ traceId: newTraceId(), parentId: newSpanId(), flags: 0 });
}
