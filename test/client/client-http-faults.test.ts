import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, RateLimitError, ServerError, SpeechClient, TimeoutError } from '../../src/client/index.js';
import { HttpTransport } from '../../src/client/http.js';
import { resolveClientOptions } from '../../src/client/defaults.js';
import { delay, sendJson, startFakeServer, type FakeServer } from '../support/client-fakes.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function client(url: string, extra: ConstructorParameters<typeof SpeechClient>[0] = {}) {
  return new SpeechClient({ baseUrl: url, apiKey: 'k', retryBaseDelayMs: 10, ...extra });
}

describe('HTTP retries and faults', () => {
  it('retries a 429 after the Retry-After delay, then succeeds', async () => {
    const times: number[] = [];
    server = await startFakeServer({
      http: (_req, res, index) => {
        times.push(Date.now());
        if (index === 0) return sendJson(res, 429, { status: 429, message: 'slow down' }, { 'retry-after': '1' });
        res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(Buffer.from('audio'));
      },
    });
    const audio = await client(server.url).tts({ text: 'hi' }).collect();
    expect(Buffer.from(audio).toString()).toBe('audio');
    expect(server.requests).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
  });

  it('gives up with RateLimitError carrying retryAfterMs when retries run out', async () => {
    server = await startFakeServer({ http: (_req, res) => sendJson(res, 429, { status: 429, message: 'slow down' }, { 'retry-after': '0' }) });
    const error = await client(server.url, { maxRetries: 1 }).tts({ text: 'hi' }).collect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(0);
    expect((error as RateLimitError).status).toBe(429);
    expect((error as RateLimitError).body).toEqual({ status: 429, message: 'slow down' });
    expect(server.requests).toHaveLength(2);
  });

  it('retries 503 twice with backoff and then succeeds', async () => {
    server = await startFakeServer({
      http: (_req, res, index) => {
        if (index < 2) return sendJson(res, 503, { status: 503, message: 'busy' });
        res.writeHead(200).end(Buffer.from('ok'));
      },
    });
    const audio = await client(server.url).tts({ text: 'hi' }).collect();
    expect(Buffer.from(audio).toString()).toBe('ok');
    expect(server.requests).toHaveLength(3);
  });

  it('throws ServerError after the last retry of a 5xx', async () => {
    server = await startFakeServer({ http: (_req, res) => sendJson(res, 500, { status: 500, message: 'boom' }) });
    const error = await client(server.url, { maxRetries: 2 }).tts({ text: 'hi' }).collect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).message).toContain('boom');
    expect(server.requests).toHaveLength(3);
  });

  it('retries a connection reset before the response', async () => {
    server = await startFakeServer({
      http: (_req, res, index) => {
        if (index === 0) return void res.socket?.destroy();
        res.writeHead(200).end(Buffer.from('ok'));
      },
    });
    const audio = await client(server.url).tts({ text: 'hi' }).collect();
    expect(Buffer.from(audio).toString()).toBe('ok');
    expect(server.requests).toHaveLength(2);
  });

  it('surfaces a reset mid-stream as ConnectionError after the audio already delivered, without retrying', async () => {
    server = await startFakeServer({
      http: async (_req, res) => {
        res.writeHead(200, { 'content-type': 'audio/mpeg' });
        res.write(Buffer.from('first-'));
        await delay(50);
        res.socket?.destroy();
      },
    });
    const received: string[] = [];
    let error: unknown;
    try {
      for await (const chunk of client(server.url).tts({ text: 'hi' })) received.push(Buffer.from(chunk).toString());
    } catch (caught) {
      error = caught;
    }
    expect(received.join('')).toBe('first-');
    expect(error).toBeInstanceOf(ConnectionError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a stream cut off before its first audio byte reached the caller', async () => {
    server = await startFakeServer({
      http: async (_req, res, index) => {
        res.writeHead(200);
        if (index === 0) {
          res.flushHeaders();
          await delay(20);
          return void res.socket?.destroy();
        }
        res.end('whole');
      },
    });
    expect(Buffer.from(await client(server.url).tts({ text: 'hi' }).collect()).toString()).toBe('whole');
    expect(server.requests).toHaveLength(2);
  });

  it('retries a GET whose JSON body is cut off', async () => {
    server = await startFakeServer({
      http: async (_req, res, index) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        if (index === 0) {
          res.write('{"total": 1, "ite');
          await delay(20);
          return void res.socket?.destroy();
        }
        res.end(JSON.stringify({ total: 0, items: [] }));
      },
    });
    expect(await client(server.url).voiceModels.list()).toEqual({ total: 0, items: [] });
    expect(server.requests).toHaveLength(2);
  });

  it('fires the timeout when the server is slow to answer', async () => {
    let answered = false;
    server = await startFakeServer({ http: async (_req, res) => { await delay(2_000); answered = true; res.writeHead(200).end(); } });
    const error = await client(server.url, { timeoutMs: 200, maxRetries: 0 }).tts({ text: 'hi' }).collect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    // The client's timeout, not the server's late answer, ended the request.
    expect(answered).toBe(false);
  });

  it('fires the timeout when a streamed body stalls between chunks', async () => {
    server = await startFakeServer({
      http: async (_req, res) => {
        res.writeHead(200);
        res.write('a');
        await delay(2_000);
        res.end('b');
      },
    });
    const error = await client(server.url, { timeoutMs: 200 }).tts({ text: 'hi' }).collect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it('stops at once when the caller aborts, with the abort reason', async () => {
    server = await startFakeServer({ http: async (_req, res) => { await delay(2_000); res.writeHead(200).end(); } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 100);
    const error = await client(server.url).tts({ text: 'hi' }, { signal: controller.signal }).collect().catch((e: unknown) => e);
    expect((error as Error).message).toBe('caller gave up');
  });

  it('never retries a request whose body is a one-shot stream', async () => {
    server = await startFakeServer({ http: (_req, res) => sendJson(res, 503, { status: 503, message: 'busy' }) });
    const http = new HttpTransport(resolveClientOptions({ baseUrl: server.url, apiKey: 'k', retryBaseDelayMs: 10 }));
    const stream = () => new ReadableStream<Uint8Array>({ start(c) { c.enqueue(new TextEncoder().encode('once')); c.close(); } });
    const error = await http
      .send({ method: 'POST', path: '/v1/asr', body: { make: stream, replayable: false }, what: 'POST /v1/asr' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body.toString()).toBe('once');
  });

  it('sends the key, the model header and extra headers', async () => {
    server = await startFakeServer({ http: (_req, res) => res.writeHead(200).end('x') });
    await client(server.url, { headers: { 'x-team': 'blue' }, model: 's1' }).tts({ text: 'hi' }).collect();
    const headers = server.requests[0]!.headers;
    expect(headers.authorization).toBe('Bearer k');
    expect(headers.model).toBe('s1');
    expect(headers['x-team']).toBe('blue');
  });

  it('uses a custom fetch', async () => {
    const urls: string[] = [];
    const fake: typeof fetch = async (input) => {
      urls.push(String(input));
      return new Response('pcm-bytes', { status: 200 });
    };
    const audio = await new SpeechClient({ baseUrl: 'http://nowhere.invalid', apiKey: 'k', fetch: fake }).tts({ text: 'hi' }).collect();
    expect(Buffer.from(audio).toString()).toBe('pcm-bytes');
    expect(urls).toEqual(['http://nowhere.invalid/v1/tts']);
  });
});

describe('HTTP faults through a custom fetch', () => {
  const viaFetch = (url: string, extra: ConstructorParameters<typeof SpeechClient>[0] = {}) => client(url, { fetch: globalThis.fetch, ...extra });

  it('retries 503 then succeeds', async () => {
    server = await startFakeServer({
      http: (_req, res, index) => (index < 2 ? sendJson(res, 503, { status: 503, message: 'busy' }) : res.writeHead(200).end('ok')),
    });
    expect(Buffer.from(await viaFetch(server.url).tts({ text: 'hi' }).collect()).toString()).toBe('ok');
    expect(server.requests).toHaveLength(3);
  });

  it('turns a reset mid-stream into ConnectionError', async () => {
    server = await startFakeServer({
      http: async (_req, res) => {
        res.writeHead(200);
        res.write('partial');
        await delay(50);
        res.socket?.destroy();
      },
    });
    await expect(viaFetch(server.url).tts({ text: 'hi' }).collect()).rejects.toBeInstanceOf(ConnectionError);
    expect(server.requests).toHaveLength(1);
  });

  it('fires the timeout on a slow server', async () => {
    server = await startFakeServer({ http: async (_req, res) => { await delay(2_000); res.writeHead(200).end(); } });
    await expect(viaFetch(server.url, { timeoutMs: 200, maxRetries: 0 }).tts({ text: 'hi' }).collect()).rejects.toBeInstanceOf(TimeoutError);
  });
});
