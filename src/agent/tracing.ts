import { context, ROOT_CONTEXT, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { Observable } from 'rxjs';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent, spanAttributes } from '../tracing/index.js';
import type { CallTraceContext } from './contracts.js';
import type { TurnMetrics, TurnReport } from './events.js';

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

/** The span attribute of each turn metric (a new metric must be given one here). */
const metricAttributes: Record<keyof TurnMetrics, string> = {
  endOfSpeechToFinalMs: spanAttributes.asrEndOfSpeechToFinalMs,
  dialogueFirstTokenMs: spanAttributes.dialogueFirstTokenMs,
  ttsFirstAudioMs: spanAttributes.ttsFirstAudioMs,
  voiceToVoiceMs: spanAttributes.turnVoiceToVoiceMs,
  endpointingMs: spanAttributes.turnEndpointingMs,
  frameworkOverheadMs: spanAttributes.turnFrameworkOverheadMs,
  preemptive: spanAttributes.turnPreemptive,
  interrupted: spanAttributes.turnInterrupted,
  sttProvider: spanAttributes.turnSttProvider,
  ttsProvider: spanAttributes.turnTtsProvider,
  sttCharge: spanAttributes.turnSttCharge,
  ttsCharge: spanAttributes.turnTtsCharge,
};

/** A finished turn's number and metrics as span attributes (figures not measured are left out). */
export function turnAttributes(report: TurnReport): Attributes {
  const attributes: Attributes = { [spanAttributes.turnNumber]: report.turn };
  for (const [key, name] of Object.entries(metricAttributes) as [keyof TurnMetrics, string][]) {
    const value = report.metrics[key];
    if (value !== undefined) attributes[name] = value;
  }
  return attributes;
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
