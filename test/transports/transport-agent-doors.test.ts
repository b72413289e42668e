import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startDemoServer, type DemoServer } from '../../src/transports/browser/index.js';
import { openRaw } from '../support/raw-http.js';

let server: DemoServer;
beforeAll(async () => {
  server = await startDemoServer({
    port: 0,
    agents: { default: 'loopback', agents: [{ name: 'loopback' }] },
    startCall: (_transport, request) => ({ agent: 'loopback', mode: request.mode ?? 'balanced', stop: () => {} }),
    guard: { allowedOrigins: ['https://app.example.com'], accessToken: 'door-token' },
    connections: { headersTimeoutMs: 1000, bodyStallTimeoutMs: 1000, keepAliveTimeoutMs: 500, maxConnections: 50 },
  });
});
afterAll(async () => server?.close());

/** The upgrade's outcome: 'open', or the refusal's status and JSON body. */
function upgrade(query: string, headers: Record<string, string>): Promise<'open' | { status: number; body: unknown }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}ws${query}`, { headers });
    ws.on('open', () => {
      ws.terminate();
      resolve('open');
    });
    ws.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(body) }));
    });
    ws.on('error', () => {});
  });
}

describe("the agent's browser WebSocket door", () => {
  it("accepts the page's own origin and configured ones, with the token", async () => {
    const own = new URL(server.url).origin;
    expect(await upgrade('?access_token=door-token', { origin: own })).toBe('open');
    expect(await upgrade('?access_token=door-token', { origin: 'https://app.example.com' })).toBe('open');
    expect(await upgrade('', { origin: own, authorization: 'Bearer door-token' })).toBe('open');
  });

  it('refuses another origin with 403 and a missing or wrong token with 401', async () => {
    expect(await upgrade('?access_token=door-token', { origin: 'https://evil.example' })).toEqual({
      status: 403,
      body: { status: 403, message: 'origin https://evil.example may not open calls here; start the agent with --allow-origin https://evil.example' },
    });
    const own = new URL(server.url).origin;
    for (const query of ['', '?access_token=wrong']) {
      expect(await upgrade(query, { origin: own })).toEqual({ status: 401, body: { status: 401, message: expect.stringMatching(/needs an access token/) } });
    }
  });

  it('closes idle connections like the speech service does', async () => {
    const raw = await openRaw(server.url);
    const { afterMs } = await raw.closed;
    expect(afterMs).toBeLessThan(2500);
  });
});
