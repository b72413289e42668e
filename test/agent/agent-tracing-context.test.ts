import { context, INVALID_SPAN_CONTEXT, trace, ROOT_CONTEXT } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { lastValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { callParentContext, childSpan, ensureContextManager, inContext, traceparentOf, turnAttributes } from '../../src/agent/tracing.js';
import { spanAttributes } from '../../src/tracing/index.js';

const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const exporter = new InMemorySpanExporter();
const sdkTracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
const noSdkTracer = trace.getTracerProvider().getTracer('no-sdk'); // the API's no-op tracer: no SDK registered

describe('a call\'s trace context', () => {
  it('continues the trace of a valid incoming traceparent, flags included', () => {
    expect(traceparentOf(callParentContext({ traceparent: incoming }))).toBe(incoming);
    const unsampled = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';
    expect(traceparentOf(callParentContext({ traceparent: unsampled }))).toBe(unsampled);
    expect(trace.getSpanContext(callParentContext({ traceparent: incoming }))!.isRemote).toBe(true);
  });

  it('starts a fresh sampled trace without a traceparent or with a broken one', () => {
    for (const traceparent of [undefined, '', '00-zz-yy-01', incoming.toUpperCase()]) {
      const made = traceparentOf(callParentContext({ ...(traceparent === undefined ? {} : { traceparent }) }));
      expect(made, String(traceparent)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(made!.split('-')[1]).not.toBe(incoming.split('-')[1]);
    }
    const [a, b] = [callParentContext({}), callParentContext({})].map((ctx) => traceparentOf(ctx));
    expect(a).not.toBe(b);
  });

  it('has no traceparent for a context without a valid span', () => {
    expect(traceparentOf(ROOT_CONTEXT)).toBeUndefined();
    expect(traceparentOf(trace.setSpanContext(ROOT_CONTEXT, INVALID_SPAN_CONTEXT))).toBeUndefined();
  });

  it('gives a child span its own id under an SDK, and keeps the parent ids without one', () => {
    const parent = callParentContext({ traceparent: incoming });
    const withSdk = childSpan(sdkTracer, 'asr', parent, { 'shoal.turn': 2 });
    withSdk.span.end();
    const [traceId, spanId] = traceparentOf(withSdk.ctx)!.split('-').slice(1, 3);
    expect(traceId).toBe(incoming.split('-')[1]);
    expect(spanId).toBe(withSdk.span.spanContext().spanId);
    expect(spanId).not.toBe(incoming.split('-')[2]);
    const finished = exporter.getFinishedSpans().at(-1)!;
    expect(finished.name).toBe('asr');
    expect(finished.attributes['shoal.turn']).toBe(2);
    expect(finished.parentSpanContext?.spanId).toBe(incoming.split('-')[2]);

    const withoutSdk = childSpan(noSdkTracer, 'asr', parent);
    expect(traceparentOf(withoutSdk.ctx)).toBe(incoming);
  });

  it('runs an observable\'s set-up with the given context active', async () => {
    ensureContextManager();
    const ctx = callParentContext({ traceparent: incoming });
    const seen = await lastValueFrom(inContext(ctx, () => of(traceparentOf(context.active()))));
    expect(seen).toBe(incoming);
    expect(traceparentOf(context.active())).toBeUndefined();
  });
});

describe('turnAttributes', () => {
  it('puts each measured metric under its own attribute and leaves out what was not measured', () => {
    const attributes = turnAttributes({
      turn: 3,
      metrics: { voiceToVoiceMs: 812, endpointingMs: 500, endOfSpeechToFinalMs: 120, dialogueFirstTokenMs: 9, ttsFirstAudioMs: 60, frameworkOverheadMs: 4, preemptive: true, interrupted: false },
    } as Parameters<typeof turnAttributes>[0]);
    expect(attributes).toEqual({
      [spanAttributes.turnNumber]: 3,
      [spanAttributes.turnVoiceToVoiceMs]: 812,
      [spanAttributes.turnEndpointingMs]: 500,
      [spanAttributes.asrEndOfSpeechToFinalMs]: 120,
      [spanAttributes.dialogueFirstTokenMs]: 9,
      [spanAttributes.ttsFirstAudioMs]: 60,
      [spanAttributes.turnFrameworkOverheadMs]: 4,
      [spanAttributes.turnPreemptive]: true,
      [spanAttributes.turnInterrupted]: false,
    });
    const sparse = turnAttributes({ turn: 1, metrics: { interrupted: true } } as Parameters<typeof turnAttributes>[0]);
    expect(sparse).toStrictEqual({ [spanAttributes.turnNumber]: 1, [spanAttributes.turnInterrupted]: true }); // no undefined keys
  });
});
