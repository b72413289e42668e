import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineBusyError, type TextToSpeechEngine } from '../../src/engines/index.js';
import { parsePrometheus } from '../support/prometheus-text.js';
import { postJson, startService, type RunningService } from '../support/service-harness.js';

describe('shoal serve: health, readiness, metrics and drain', () => {
  let server: RunningService;
  beforeAll(async () => {
    server = await startService();
  }, 60_000);
  afterAll(async () => server?.close());

  it('answers /healthz, /readyz and /metrics without an API key', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, draining: false });
    const metrics = await fetch(`${server.url}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const samples = parsePrometheus(await metrics.text());
    expect(samples.get('shoal_engine_workers{pool="flite"}')).toBeGreaterThanOrEqual(1);
    expect(samples.get('shoal_engine_queue_depth{pool="flite"}')).toBe(0);
    expect(samples.has('nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('drains: new requests get 503 with Retry-After, the request in progress finishes, then drain resolves', async () => {
    const text = 'This sentence takes the synthesiser a little while. '.repeat(6);
    const inProgress = postJson(`${server.url}/v1/tts`, { text, format: 'wav' });
    // Drain once the server has the request (readyz counts it), not after a fixed sleep a loaded machine can overrun.
    await expect.poll(async () => ((await (await fetch(`${server.url}/readyz`)).json()) as { requests: number }).requests, { interval: 5 }).toBe(1);
    let drained = false;
    const drain = server.service.drain(20_000).then(() => (drained = true));
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ ready: false, draining: true });
    const refused = await postJson(`${server.url}/v1/tts`, { text: 'Hello.', format: 'wav' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { message: string }).message).toMatch(/shutting down/);
    const finished = await inProgress;
    expect(finished.status).toBe(200);
    expect((await finished.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    await drain;
    expect(drained).toBe(true);
  }, 60_000);
});

describe('shoal serve when the engine pool is full', () => {
  it('answers 503 with Retry-After and retryAfterMs from EngineBusyError', async () => {
    const busy: TextToSpeechEngine = {
      name: 'busy',
      synthesize: () => Promise.reject(new EngineBusyError('flite', 64, 1500)),
    } as unknown as TextToSpeechEngine;
    const server = await startService({ engines: { tts: () => busy }, warmUp: false });
    try {
      const response = await postJson(`${server.url}/v1/tts`, { text: 'Hello.', format: 'wav' });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('2');
      expect(await response.json()).toMatchObject({ status: 503, retryAfterMs: 1500, message: expect.stringMatching(/flite engine is busy/) });
    } finally {
      await server.close();
    }
  });
});
