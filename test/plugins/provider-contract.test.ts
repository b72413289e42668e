import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { ProviderError, failureOfStatus, parseProviderChoices, requireKey } from '../../src/agent/index.js';
import { openProviderSocket, websocketUrl } from '../../plugins/provider-kit.js';

describe('provider choices', () => {
  it('reads NAME[:MODEL] lists in failover order', () => {
    expect(parseProviderChoices('deepgram:nova-3,local')).toEqual([{ name: 'deepgram', variant: 'nova-3' }, { name: 'local' }]);
    expect(parseProviderChoices('Cartesia:voice:with:colons')).toEqual([{ name: 'cartesia', variant: 'voice:with:colons' }]);
    expect(() => parseProviderChoices('deepgram,,local')).toThrow(/empty provider/);
  });

  it('names the key variable when a key is missing', () => {
    expect(requireKey('deepgram', 'k', 'DEEPGRAM_API_KEY')).toBe('k');
    const error = (() => {
      try {
        requireKey('deepgram', undefined, 'DEEPGRAM_API_KEY');
      } catch (caught) {
        return caught as ProviderError;
      }
    })();
    expect(error).toBeInstanceOf(ProviderError);
    expect(error?.kind).toBe('auth');
    expect(error?.line).toMatch(/^deepgram: .*DEEPGRAM_API_KEY/);
  });

  it('maps statuses to failures', () => {
    expect([401, 403, 402, 429, 500, 503, 400, 408].map(failureOfStatus)).toEqual(['auth', 'auth', 'payment', 'rate-limit', 'server', 'server', 'request', 'timeout']);
  });
});

describe('websocketUrl', () => {
  it('follows the base URL scheme and keeps a proxy path', () => {
    expect(websocketUrl('https://api.deepgram.com', '/v1/listen', { encoding: 'mulaw', sample_rate: 8000, keyterm: ['a b', 'c'], x: undefined }).href).toBe(
      'wss://api.deepgram.com/v1/listen?encoding=mulaw&sample_rate=8000&keyterm=a+b&keyterm=c',
    );
    expect(websocketUrl('http://127.0.0.1:9000/proxy/', '/v1/listen').href).toBe('ws://127.0.0.1:9000/proxy/v1/listen');
  });
});

describe('openProviderSocket', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  async function refusingServer(status: number, body: string): Promise<string> {
    const server = createServer((_request, response) => response.writeHead(status, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('turns a refused upgrade into the ProviderError of its status, with the provider\'s words', async () => {
    const base = await refusingServer(401, JSON.stringify({ err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.' }));
    const error = await openProviderSocket('deepgram', websocketUrl(base, '/v1/listen'), { headers: {}, timeoutMs: 2000, keyVariable: 'DEEPGRAM_API_KEY' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('auth');
    expect((error as ProviderError).details.status).toBe(401);
    expect((error as ProviderError).line).toBe('deepgram: the API key was rejected (HTTP 401: Invalid credentials.) (check DEEPGRAM_API_KEY)');
  });

  it('reports 429 as rate-limit and a closed port as unreachable', async () => {
    const base = await refusingServer(429, 'slow down');
    await expect(openProviderSocket('x', websocketUrl(base, '/'), { headers: {}, timeoutMs: 2000 })).rejects.toMatchObject({ kind: 'rate-limit' });
    const closed = await refusingServer(200, '');
    await closers.pop()!();
    await expect(openProviderSocket('x', websocketUrl(closed, '/'), { headers: {}, timeoutMs: 2000 })).rejects.toMatchObject({ kind: 'unreachable' });
  });

  it('opens with the given headers', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const seen = new Promise<string | undefined>((resolve) => server.on('connection', (_socket, request) => resolve(request.headers.authorization)));
    const socket = await openProviderSocket('x', new URL(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`), { headers: { Authorization: 'Token k' }, timeoutMs: 2000 });
    expect(await seen).toBe('Token k');
    socket.close();
  });
});
