import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricOf } from '../support/prometheus-text.js';
import WebSocket from 'ws';
import { connectLive } from '../support/service-live-client.js';
import { openRaw, parseRawResponse } from '../support/raw-http.js';
import { apiKey, authHeader, startService, type RunningService } from '../support/service-harness.js';

let server: RunningService;
const limits = { headersTimeoutMs: 1000, bodyStallTimeoutMs: 1000, keepAliveTimeoutMs: 500, maxConnections: 20 };
beforeAll(async () => {
  server = await startService({ warmUp: false, connections: limits, live: { startTimeoutMs: 700, maxSessions: 2 } });
});
afterAll(async () => {
  await server.close();
});

const within = (afterMs: number, limitMs: number) => expect(afterMs).toBeLessThan(limitMs + 1500);

describe('connection timeouts', () => {
  it('closes a connection that never sends a byte after the headers timeout', async () => {
    const raw = await openRaw(server.url);
    const { afterMs } = await raw.closed;
    within(afterMs, limits.headersTimeoutMs);
    expect(afterMs).toBeGreaterThanOrEqual(limits.headersTimeoutMs - 50);
  });

  it('answers 408 in the service shape when the headers stop half-way', async () => {
    const before = await metricOf(server.url, 'shoal_connection_timeouts_total{kind="headers"}');
    const raw = await openRaw(server.url, 'GET /wallet/self/api-credit HTTP/1.1\r\nHost: x\r\n');
    const { text, afterMs } = await raw.closed;
    within(afterMs, limits.headersTimeoutMs);
    expect(parseRawResponse(text)).toEqual({ status: 408, body: { status: 408, message: expect.stringMatching(/headers did not arrive in time/) } });
    expect(await metricOf(server.url, 'shoal_connection_timeouts_total{kind="headers"}')).toBeGreaterThan(before);
  });

  it('answers 408 when a request body stalls, and closes the connection', async () => {
    const head = `POST /v1/tts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`;
    const before = await metricOf(server.url, 'shoal_connection_timeouts_total{kind="body-stall"}');
    const raw = await openRaw(server.url, `${head}{"text": "only part of the bo`);
    const { text, afterMs } = await raw.closed;
    within(afterMs, limits.bodyStallTimeoutMs);
    expect(parseRawResponse(text)).toEqual({ status: 408, body: { status: 408, message: 'request body stalled: nothing arrived for 1 s; send the body without pauses' } });
    expect(await metricOf(server.url, 'shoal_connection_timeouts_total{kind="body-stall"}')).toBe(before + 1);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const raw = await openRaw(server.url, `GET /v1/nothing HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n\r\n`);
    const { text, afterMs } = await raw.closed;
    expect(parseRawResponse(text).status).toBe(404);
    within(afterMs, limits.keepAliveTimeoutMs);
  });

  it('answers oversized headers with 431 in the service shape', async () => {
    const raw = await openRaw(server.url, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const { text } = await raw.closed;
    expect(parseRawResponse(text)).toEqual({ status: 431, body: { status: 431, message: expect.stringMatching(/headers are too large/) } });
  });

  it('refuses connections beyond the cap and serves again once they close', async () => {
    const held = await Promise.all(Array.from({ length: limits.maxConnections + 5 }, () => openRaw(server.url)));
    const refusedBy = (raw: (typeof held)[number]) => Promise.race([raw.closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1500))]);
    const refused = (await Promise.all(held.map(refusedBy))).filter(Boolean);
    expect(refused.length).toBeGreaterThanOrEqual(5);
    held.forEach((raw) => raw.socket.destroy());
    await new Promise((resolve) => setTimeout(resolve, 200));
    const response = await fetch(`${server.url}/v1/nothing`, { headers: authHeader });
    expect(response.status).toBe(404);
  });
});

describe('live session limits', () => {
  it('closes a live socket that sends no start with 1008 and a 408 error event', async () => {
    const before = await metricOf(server.url, 'shoal_connection_timeouts_total{kind="live-start"}');
    const client = await connectLive(`${server.wsUrl}/v1/tts/live`, authHeader);
    const started = performance.now();
    const closed = await client.closed;
    expect(closed.code).toBe(1008);
    expect(await metricOf(server.url, 'shoal_connection_timeouts_total{kind="live-start"}')).toBe(before + 1);
    within(performance.now() - started, 700);
    expect(client.events[0]).toMatchObject({ event: 'error', error: { status: 408, message: expect.stringMatching(/no start event within 0\.7 s/) } });
  });

  it('refuses a live session beyond the server-wide cap with 503 and Retry-After', async () => {
    const open = await Promise.all([0, 1].map(() => connectLive(`${server.wsUrl}/v1/tts/live`, authHeader)));
    const refused = await new Promise<{ status: number; retryAfter?: string }>((resolve) => {
      const ws = new WebSocket(`${server.wsUrl}/v1/tts/live`, { headers: authHeader });
      ws.on('unexpected-response', (_request, response) => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] as string }));
      ws.on('error', () => {});
    });
    expect(refused).toEqual({ status: 503, retryAfter: '1' });
    expect(await metricOf(server.url, 'shoal_service_refusals_total{status="503"}')).toBeGreaterThan(0);
    open.forEach((client) => client.ws.terminate());
  });
});
