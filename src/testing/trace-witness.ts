import { context as otelContext, trace, TraceFlags, type Context, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import { newSpanId, newTraceId } from '../tracing/index.js';

/**
 * A tracer for the agent under test that records which trace each of its spans joined (the call, its turns,
 * recognition, dialogue, synthesis): a span started outside the call's context would begin a trace of its own.
 * Its spans record nothing else; their context is propagated as any span's (to the speech service, the LLM).
 */
export class TraceWitness implements Tracer {
  /** Spans started, by trace id. */
  readonly traces = new Map<string, number>();

  startSpan(_name: string, _options?: SpanOptions, context: Context = otelContext.active()): Span {
    const traceId = trace.getSpanContext(context)?.traceId ?? newTraceId();
    this.traces.set(traceId, (this.traces.get(traceId) ?? 0) + 1);
    return trace.wrapSpanContext({ traceId, spanId: newSpanId(), traceFlags: TraceFlags.SAMPLED });
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest.pop() as F;
    const [options, context] = rest as [SpanOptions | undefined, Context | undefined];
    const parent = context ?? otelContext.active();
    const span = this.startSpan(name, options, parent);
    return otelContext.with(trace.setSpan(parent, span), () => fn(span)) as ReturnType<F>;
  }
}
