import { context, ROOT_CONTEXT, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { Observable } from 'rxjs';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent } from '../tracing/index.js';
import type { CallTraceContext } from './contracts.js';

export const agentTracer = (): Tracer => trace.getTracer('shoal-agent');

/**
 * The context a call's spans hang from: the transport's trace when it sent a valid `traceparent`, otherwise a
 * fresh trace id. A fresh id is made here (not left to the SDK) so that outgoing requests carry the call's
 * trace even when no OpenTelemetry SDK is installed.
 */
export function callParentContext(traceContext: CallTraceContext): Context {
  const parsed = parseTraceparent(traceContext.traceparent);
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: parsed?.traceId ?? newTraceId(),
    spanId: parsed?.parentId ?? newSpanId(),
    traceFlags: parsed?.flags ?? 1,
    isRemote: true,
  });
}

/** The `traceparent` for a request made under `ctx` (default: the active context), if it holds a valid span. */
export function traceparentOf(ctx: Context = context.active()): string | undefined {
  const spanContext = trace.getSpanContext(ctx);
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  return formatTraceparent({ traceId: spanContext.traceId, parentId: spanContext.spanId, flags: spanContext.traceFlags });
}

/** A span whose context keeps the parent's ids when the API is a no-op (no SDK), so propagation still works. */
export function childSpan(tracer: Tracer, name: string, parent: Context, attributes: Record<string, string | number | boolean> = {}): { span: Span; ctx: Context } {
  const span = tracer.startSpan(name, { attributes }, parent);
  const ctx = trace.isSpanContextValid(span.spanContext()) ? trace.setSpan(parent, span) : parent;
  return { span, ctx };
}

/** Sets the numeric metrics on a span as `shoal.*` attributes (undefined figures are left out). */
export function setMetricAttributes(span: Span, prefix: string, metrics: object): void {
  for (const [key, value] of Object.entries(metrics)) {
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') {
      span.setAttribute(`${prefix}.${key}`, value);
    }
  }
}

let contextManagerChecked = false;

/**
 * Spans of a call are found through the active context, which needs a context manager; when the application
 * has not registered one, an AsyncLocalStorage one is registered (an application's own always wins).
 */
export function ensureContextManager(): void {
  if (contextManagerChecked) return;
  contextManagerChecked = true;
  const manager = new AsyncLocalStorageContextManager();
  if (context.setGlobalContextManager(manager.enable())) return;
  manager.disable();
}

/** Subscribes to `source` (and so runs its set-up) with `ctx` active, so requests it makes carry that trace. */
export function inContext<T>(ctx: Context, source: () => Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => context.with(ctx, () => source().subscribe(subscriber)));
}
