import { encode } from '@msgpack/msgpack';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { apiKey, authHeader, postJson, startService, type RunningService } from '../support/service-harness.js';

const exporter = new InMemorySpanExporter();
const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const parentId = '00f067aa0ba902b7';
const traceparent = `00-${traceId}-${parentId}-01`;
let server: RunningService;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  server = await startService();
});
afterAll(async () => {
  await server.close();
  trace.disable();
  context.disable();
});
afterEach(() => exporter.reset());

async function spanNamed(name: string): Promise<ReadableSpan> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const span = exporter.getFinishedSpans().find((candidate) => candidate.name === name);
    if (span) return span;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no finished span ${name}; have ${exporter.getFinishedSpans().map((span) => span.name).join(', ')}`);
}

const tts = async (headers: Record<string, string>) => {
  const response = await postJson(`${server.url}/v1/tts`, { text: 'Tracing does not change audio.', format: 'pcm', sample_rate: 16000 }, headers);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
};

describe('traceparent on the inference endpoints', () => {
  it('continues the incoming trace in the tts server span and its synthesis spans', async () => {
    await tts({ traceparent });
    const span = await spanNamed('tts');
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanContext?.spanId).toBe(parentId);
    const synthesis = exporter.getFinishedSpans().filter((candidate) => candidate.name === 'tts.synthesize');
    expect(synthesis.length).toBeGreaterThan(0);
    for (const child of synthesis) {
      expect(child.spanContext().traceId).toBe(traceId);
      expect(child.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    }
  });

  it('starts a new trace for a missing or invalid header, and never changes the audio', async () => {
    const traced = await tts({ traceparent });
    exporter.reset();
    const untraced = await tts({});
    const fresh = await spanNamed('tts');
    expect(fresh.spanContext().traceId).not.toBe(traceId);
    expect(fresh.parentSpanContext).toBeUndefined();
    exporter.reset();
    const invalid = await tts({ traceparent: `00-${'0'.repeat(32)}-${parentId}-01` });
    const another = await spanNamed('tts');
    expect(another.spanContext().traceId).not.toBe('0'.repeat(32));
    expect(another.parentSpanContext).toBeUndefined();
    expect(untraced.equals(traced)).toBe(true);
    expect(invalid.equals(traced)).toBe(true);
  });

  it('continues the trace on /v1/tts/stream/with-timestamp, /v1/asr and /v1/voice-design', async () => {
    const sse = await postJson(`${server.url}/v1/tts/stream/with-timestamp`, { text: 'Hello.' }, { traceparent });
    await sse.text();
    expect((await spanNamed('tts.stream')).spanContext().traceId).toBe(traceId);
    const form = new FormData();
    form.set('audio', new Blob([readFileSync(join(import.meta.dirname, '../fixtures/speech/slt_03.wav'))]), 'a.wav');
    const asr = await fetch(`${server.url}/v1/asr`, { method: 'POST', headers: { ...authHeader, traceparent }, body: form });
    expect(asr.status).toBe(200);
    expect((await spanNamed('asr')).spanContext().traceId).toBe(traceId);
    const design = await postJson(`${server.url}/v1/voice-design`, { instruction: 'a voice', seed: 1 }, { model: 'voice-design-1', traceparent });
    expect(design.status).toBe(200);
    expect((await spanNamed('voice-design')).spanContext().traceId).toBe(traceId);
  });

  it('continues the trace of the WebSocket upgrade in the live session span', async () => {
    const ws = new WebSocket(`${server.wsUrl}/v1/tts/live`, { headers: { authorization: `Bearer ${apiKey}`, traceparent } });
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(encode({ event: 'start', request: { format: 'pcm' } }));
    ws.send(encode({ event: 'text', text: 'Traced.' }));
    ws.send(encode({ event: 'stop' }));
    await new Promise((resolve) => ws.once('close', resolve));
    const live = await spanNamed('tts.live');
    expect(live.spanContext().traceId).toBe(traceId);
    expect(live.parentSpanContext?.spanId).toBe(parentId);
    const synthesis = exporter.getFinishedSpans().filter((candidate) => candidate.name === 'tts.synthesize');
    expect(synthesis.every((child) => child.spanContext().traceId === traceId)).toBe(true);
  });

  it('marks the span of a failed request as an error', async () => {
    const response = await postJson(`${server.url}/v1/tts`, { text: 'hi', reference_id: 'nope' }, { traceparent });
    expect(response.status).toBe(400);
    const span = await spanNamed('tts');
    expect(span.status.code).toBe(2);
    expect(span.spanContext().traceId).toBe(traceId);
  });
});
