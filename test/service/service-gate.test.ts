import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { VoiceSettings } from '../../src/engines/index.js';
import { ServiceError, startEmbeddedService, type AccountGate, type Principal, type Reservation, type Usage } from '../../src/service/index.js';
import { postJson, startService, type RunningService } from '../support/service-harness.js';

/** A gate whose credit and rate answers a test can switch, recording every call. */
class SwitchableGate implements AccountGate {
  credit = true;
  overRate = false;
  charges: { usage: Usage; requestId: string }[] = [];
  openSlots = 0;
  async authenticate(key: string | undefined): Promise<Principal | null> {
    return key === 'sk_gate' ? { userId: 'u1', keyId: 'k1' } : null;
  }
  async ensureCredit(): Promise<void> {
    if (!this.credit) throw new ServiceError(402, 'API key invalid or no credit left');
  }
  async charge(_principal: Principal, usage: Usage, requestId: string): Promise<void> {
    this.charges.push({ usage, requestId });
  }
  async isActive(): Promise<boolean> {
    return true;
  }
  async reserve(principal: Principal, _usage: Usage, requestId: string): Promise<Reservation> {
    return { extend: async () => {}, settle: async (delivered) => (delivered ? await this.charge(principal, delivered, requestId) : undefined, null), quote: () => null };
  }
  async admit(): Promise<() => void> {
    if (this.overRate) throw new ServiceError(429, 'too many requests; retry later', 3);
    this.openSlots += 1;
    return () => (this.openSlots -= 1);
  }
}

let running: RunningService | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

function upgrade(url: string): Promise<{ status: number; retryAfter?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/v1/tts/live`, { headers: { authorization: 'Bearer sk_gate' } });
    ws.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] as string | undefined, body }));
    });
    ws.on('open', () => reject(new Error('upgrade succeeded')));
    ws.on('error', () => {});
  });
}

describe('the account gate on every route', () => {
  it('answers 402 before any work when out of credit, over HTTP and on the WebSocket upgrade', async () => {
    const gate = new SwitchableGate();
    gate.credit = false;
    running = await startService({ accounts: gate });
    const response = await postJson(`${running.url}/v1/tts`, { text: 'hi' }, { authorization: 'Bearer sk_gate' });
    expect(response.status).toBe(402);
    expect(await response.json()).toEqual({ status: 402, message: 'API key invalid or no credit left' });
    const refused = await upgrade(running.url);
    expect(refused.status).toBe(402);
    expect(JSON.parse(refused.body)).toEqual({ status: 402, message: 'API key invalid or no credit left' });
    expect(gate.charges).toEqual([]);
  });

  it('answers 429 with Retry-After when over the rate, over HTTP and on the upgrade', async () => {
    const gate = new SwitchableGate();
    gate.overRate = true;
    running = await startService({ accounts: gate });
    const response = await postJson(`${running.url}/v1/tts`, { text: 'hi' }, { authorization: 'Bearer sk_gate' });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    const refused = await upgrade(running.url);
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('3');
  });

  it('releases every admission slot when responses end, and bills with the request id once', async () => {
    const gate = new SwitchableGate();
    running = await startService({ accounts: gate, limits: { ttsStreams: 8 } }); // five at once: above the default cap on 2 cores
    const headers = { authorization: 'Bearer sk_gate' };
    await Promise.all(
      Array.from({ length: 5 }, async () => (await postJson(`${running!.url}/v1/tts`, { text: 'Hello.', format: 'wav' }, headers)).arrayBuffer()),
    );
    await (await postJson(`${running.url}/v1/tts`, { text: 'hi', sample_rate: 5 }, headers)).text();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gate.openSlots).toBe(0);
    expect(gate.charges).toHaveLength(5);
    expect(new Set(gate.charges.map((charge) => charge.requestId)).size).toBe(5);
  });

  it('stops synthesis and bills only the audio sent when the client goes away mid-stream', async () => {
    const gate = new SwitchableGate();
    running = await startService({ accounts: gate });
    const text = Array.from({ length: 60 }, (_, i) => `Sentence ${i} is here to make the answer long.`).join(' ');
    const response = await postJson(`${running.url}/v1/tts`, { text, format: 'pcm', chunk_length: 100 }, { authorization: 'Bearer sk_gate' });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(gate.charges).toHaveLength(1);
    const billed = gate.charges[0]!.usage as { characters: number };
    expect(billed.characters).toBeGreaterThan(0);
    expect(billed.characters).toBeLessThan(text.length / 4);
    expect(gate.openSlots).toBe(0);
  });
});

describe('engine failures', () => {
  it('cuts the chunked body short when synthesis fails after the first chunk, bills the first chunk only, and keeps serving', async () => {
    const { FliteEngine } = await import('../../src/engines/index.js');
    const flite = new FliteEngine();
    let calls = 0;
    const failing = {
      name: 'failing-after-one',
      synthesize: (text: string, voice: VoiceSettings, signal?: AbortSignal) => {
        calls += 1;
        if (text.startsWith('Second')) return Promise.reject(new Error('engine crashed'));
        return flite.synthesize(text, voice, signal);
      },
    };
    const gate = new SwitchableGate();
    running = await startService({ accounts: gate, warmUp: false, engines: { tts: () => failing } });
    const headers = { authorization: 'Bearer sk_gate' };
    const text = 'First sentence is long enough to be a chunk of its own, surely it is. Second sentence fails inside the engine.';
    const response = await postJson(`${running.url}/v1/tts`, { text, format: 'pcm', chunk_length: 100 }, headers);
    expect(response.status).toBe(200);
    await expect(response.arrayBuffer()).rejects.toThrow();
    const early = await postJson(`${running.url}/v1/tts`, { text: 'Second one fails before any audio.', format: 'pcm' }, headers);
    expect(early.status).toBe(500);
    expect(((await early.json()) as { message: string }).message).toMatch(/internal error/);
    const fine = await postJson(`${running.url}/v1/tts`, { text: 'Still serving.', format: 'pcm' }, headers);
    expect(fine.status).toBe(200);
    await fine.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gate.charges.map((charge) => charge.usage)).toEqual([
      { kind: 'tts', characters: expect.any(Number) },
      { kind: 'tts', characters: 'Still serving.'.length },
    ]);
    const firstShare = (gate.charges[0]!.usage as { characters: number }).characters;
    expect(firstShare).toBeGreaterThan(40);
    expect(firstShare).toBeLessThan(text.length - 30);
    expect(calls).toBeGreaterThanOrEqual(3);
  });
});

describe('request logs', () => {
  it('writes one line per request with status, latency and the trace id', async () => {
    const stream = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    stream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    running = await startService({ logLevel: 'info', logStream: stream });
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    await (await postJson(`${running.url}/v1/tts`, { text: 'Logged.' }, { traceparent: `00-${traceId}-b7ad6b7169203331-01` })).arrayBuffer();
    await (await fetch(`${running.url}/v1/tts`, { method: 'POST' })).text();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const requests = lines.filter((line) => line.msg === 'request');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ method: 'POST', url: '/v1/tts', status: 200, traceId });
    expect(typeof requests[0]!.latencyMs).toBe('number');
    expect(requests[1]).toMatchObject({ status: 401 });
    expect(requests[1]!.traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('startEmbeddedService', () => {
  it('runs the service in-process on a free port with its own key', async () => {
    const embedded = await startEmbeddedService({ port: 0 });
    try {
      expect(embedded.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const ok = await postJson(`${embedded.url}/v1/tts`, { text: 'Embedded.', format: 'wav' }, { authorization: `Bearer ${embedded.apiKey}` });
      expect(ok.status).toBe(200);
      await ok.arrayBuffer();
      const denied = await postJson(`${embedded.url}/v1/tts`, { text: 'Embedded.' }, { authorization: 'Bearer other' });
      expect(denied.status).toBe(401);
    } finally {
      await embedded.close();
    }
  });
});
