import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpeechClient } from '../../src/client/index.js';
import { startEmbeddedService, type EmbeddedService } from '../../src/service/index.js';

const exporter = new InMemorySpanExporter();
let service: EmbeddedService;
let client: SpeechClient;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  service = await startEmbeddedService({ logLevel: 'silent' });
  client = new SpeechClient({ baseUrl: service.url, apiKey: service.apiKey, live: { utteranceIdleMs: 300 } });
});

afterAll(async () => {
  await service?.close();
  trace.disable();
  propagation.disable();
  context.disable();
});

async function waitForServerSpans(traceId: string, count: number) {
  for (let i = 0; i < 100; i++) {
    const spans = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === traceId);
    if (spans.length >= count) return spans;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === traceId);
}

describe('trace correlation with shoal serve', () => {
  it("puts the server's spans of TTS, SSE, ASR and the live socket in the client's trace", async () => {
    const call = trace.getTracer('test').startSpan('voice-call');
    const traceId = call.spanContext().traceId;
    await context.with(trace.setSpan(context.active(), call), async () => {
      const audio = await client.tts({ text: 'Tracing test.', format: 'wav', sample_rate: 16000 }).collect();
      for await (const _ of client.ttsWithTimestamps({ text: 'Tracing test.', format: 'pcm' })) void _;
      await client.transcribe(audio);
      const session = await client.live({ format: 'pcm' });
      const draining = (async () => {
        for await (const _ of session) void _;
      })();
      session.send('Live tracing.');
      await session.stop();
      session.close();
      await draining;
    });
    call.end();
    const serverSpans = await waitForServerSpans(traceId, 4);
    expect(serverSpans.length).toBeGreaterThanOrEqual(4);
    const clientSpans = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT && s.spanContext().traceId === traceId);
    expect(clientSpans.map((s) => s.name).sort()).toEqual(['asr', 'tts', 'tts.live', 'tts.with_timestamp']);
    const clientSpanIds = new Set(clientSpans.map((s) => s.spanContext().spanId));
    for (const span of serverSpans) expect(clientSpanIds.has(span.parentSpanContext?.spanId ?? '')).toBe(true);
  });
});
