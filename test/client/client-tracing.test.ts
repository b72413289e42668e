import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SpeechClient } from '../../src/client/index.js';
import { parseTraceparent } from '../../src/tracing/index.js';
import { sendJson, startFakeServer, type FakeServer } from '../support/client-fakes.js';

const exporter = new InMemorySpanExporter();
let server: FakeServer | undefined;

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterAll(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});
afterEach(async () => {
  exporter.reset();
  await server?.close();
  server = undefined;
});

describe('client tracing', () => {
  it('sends a traceparent of the active trace on /v1/tts and records a client span per call', async () => {
    server = await startFakeServer({ http: (_req, res) => res.writeHead(200).end('a') });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    const parent = trace.getTracer('test').startSpan('call');
    await context.with(trace.setSpan(context.active(), parent), () => client.tts({ text: 'hi' }).collect());
    parent.end();
    const header = parseTraceparent(String(server.requests[0]!.headers.traceparent));
    expect(header?.traceId).toBe(parent.spanContext().traceId);
    const span = exporter.getFinishedSpans().find((s) => s.name === 'tts')!;
    expect(span.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(header?.parentId).toBe(span.spanContext().spanId);
  });

  it('continues an explicit traceparent on ASR, the timestamp stream and the live upgrade', async () => {
    const explicit = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    let upgradeTraceparent = '';
    server = await startFakeServer({
      http: (req, res) => {
        if (req.url === '/v1/asr') return sendJson(res, 200, { text: '', duration: 1, segments: [] });
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end();
      },
      live: (_socket, request) => (upgradeTraceparent = String(request.headers.traceparent)),
    });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    await client.transcribe(Buffer.from('RIFF....WAVEjunk'), { traceparent: explicit });
    for await (const _ of client.ttsWithTimestamps({ text: 'x' }, { traceparent: explicit })) void _;
    const session = await client.live({}, { traceparent: explicit });
    session.close();
    const upgrade = await new Promise<string>((resolve) => {
      const check = () => (server!.sockets.length ? resolve('ok') : setTimeout(check, 5));
      check();
    });
    expect(upgrade).toBe('ok');
    expect(parseTraceparent(upgradeTraceparent)?.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    for (const request of server.requests) expect(parseTraceparent(String(request.headers.traceparent))?.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    const names = exporter.getFinishedSpans().map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['asr', 'tts.with_timestamp', 'tts.live']));
    for (const span of exporter.getFinishedSpans()) expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });
});
