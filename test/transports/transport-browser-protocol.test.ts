import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { AudioFrame } from '../../src/audio/index.js';
import { startDemoServer, type BrowserTransport, type DemoServer, type ServerMessage } from '../../src/transports/browser/index.js';
import type { CallRequest } from '../../src/transports/call-request.js';
import { VirtualClock } from '../../src/pipeline/index.js';

/** A loopback "agent": plays every caller frame straight back and remembers what it was given. */
const calls: { transport: BrowserTransport; request: CallRequest; frames: AudioFrame[]; stopped: boolean }[] = [];
let server: DemoServer;

beforeAll(async () => {
  server = await startDemoServer({
    port: 0,
    agents: { default: 'loopback', agents: [{ name: 'loopback' }] },
    startCall: (transport, request) => {
      const call = { transport: transport as BrowserTransport, request, frames: [] as AudioFrame[], stopped: false };
      calls.push(call);
      transport.audio$.subscribe((frame) => {
        call.frames.push(frame);
        transport.play(frame);
      });
      return { agent: 'loopback', mode: request.mode ?? 'balanced', stop: () => (call.stopped = true) };
    },
  });
});
afterAll(async () => server?.close());

interface Client {
  ws: WebSocket;
  texts: ServerMessage[];
  audioBytes: number;
  next(type: ServerMessage['type']): Promise<ServerMessage>;
  closed: Promise<{ code: number }>;
}

async function connect(query = ''): Promise<Client> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}ws${query}`);
  const client: Client = {
    ws,
    texts: [],
    audioBytes: 0,
    next: (type) =>
      new Promise((resolve, reject) => {
        const seen = client.texts.length;
        const timer = setTimeout(() => reject(new Error(`no "${type}" message; got ${JSON.stringify(client.texts)}`)), 3000);
        const check = () => {
          const found = client.texts.slice(seen).find((m) => m.type === type);
          if (found) {
            clearTimeout(timer);
            ws.off('message', check);
            resolve(found);
          }
        };
        ws.on('message', check);
      }),
    closed: new Promise((resolve) => ws.on('close', (code) => resolve({ code }))),
  };
  ws.on('message', (data, isBinary) => {
    if (isBinary) client.audioBytes += (data as Buffer).length;
    else client.texts.push(JSON.parse(String(data)) as ServerMessage);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return client;
}

async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function pcm(samples: number[]): Buffer {
  const buffer = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => buffer.writeInt16LE(s, i * 2));
  return buffer;
}

describe('browser WebSocket protocol', () => {
  it('starts a call on hello, takes the traceparent from the query, and loops PCM16 audio both ways', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const client = await connect(`?traceparent=${traceparent}`);
    const ready = client.next('ready');
    client.ws.send(JSON.stringify({ type: 'hello', mode: 'low-latency', sampleRate: 16000 }));
    expect(await ready).toMatchObject({ type: 'ready', sampleRate: 16000, traceparent, mode: 'low-latency', agent: 'loopback' });
    const call = calls.at(-1)!;
    expect(call.transport.traceContext.traceparent).toBe(traceparent);
    client.ws.send(pcm([1, -2, 300, -32768, 32767, 0, 5, 6]));
    await until(() => call.frames.length === 1 && client.audioBytes === 16, 'the frame to loop back');
    expect(Array.from(call.frames[0]!.samples)).toEqual([1, -2, 300, -32768, 32767, 0, 5, 6]);
    expect(call.frames[0]!.sampleRate).toBe(16000);
    client.ws.close();
    await until(() => call.stopped && server.browser.activeCalls() === 0, 'the call to be freed');
  });

  it('a traceparent in hello wins over the query; an invalid one gives a fresh trace', async () => {
    const fromHello = '00-11111111111111111111111111111111-2222222222222222-01';
    const a = await connect('?traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    a.ws.send(JSON.stringify({ type: 'hello', traceparent: fromHello }));
    expect(await a.next('ready')).toMatchObject({ traceparent: fromHello });
    const b = await connect('?traceparent=garbage');
    b.ws.send(JSON.stringify({ type: 'hello' }));
    const ready = (await b.next('ready')) as Extract<ServerMessage, { type: 'ready' }>;
    expect(ready.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    a.ws.close();
    b.ws.close();
    await until(() => server.browser.activeCalls() === 0, 'calls to be freed');
  });

  it('answers text garbage, unknown messages and bad frames with errors and keeps the call', async () => {
    const client = await connect();
    client.ws.send('this is not json');
    expect(await client.next('error')).toMatchObject({ code: 'bad_json' });
    client.ws.send(pcm([1, 2]));
    expect(await client.next('error')).toMatchObject({ code: 'not_ready' });
    client.ws.send(JSON.stringify({ type: 'hello' }));
    await client.next('ready');
    client.ws.send(JSON.stringify({ type: 'teleport', to: 'mars' }));
    expect(await client.next('error')).toMatchObject({ code: 'bad_message' });
    client.ws.send(JSON.stringify([1, 2, 3]));
    expect(await client.next('error')).toMatchObject({ code: 'bad_message' });
    client.ws.send(Buffer.from([1, 2, 3]));
    expect(await client.next('error')).toMatchObject({ code: 'bad_frame' });
    client.ws.send(JSON.stringify({ type: 'hello' }));
    expect(await client.next('error')).toMatchObject({ code: 'bad_message' });
    const call = calls.at(-1)!;
    client.ws.send(pcm([7, 7]));
    await until(() => call.frames.length === 1, 'a good frame after the bad ones');
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    expect(server.browser.activeCalls()).toBe(1);
    client.ws.close();
    await until(() => server.browser.activeCalls() === 0, 'the call to be freed');
  });

  it('closes a socket that sends an oversized frame (1009) and frees its call', async () => {
    const client = await connect();
    client.ws.send(JSON.stringify({ type: 'hello' }));
    await client.next('ready');
    expect(server.browser.activeCalls()).toBe(1);
    client.ws.send(Buffer.alloc(64_000));
    expect((await client.closed).code).toBe(1009);
    await until(() => server.browser.activeCalls() === 0 && server.browser.openSockets() === 0, 'the call to be freed');
    expect(calls.at(-1)!.stopped).toBe(true);
  });

  it('frees the call when the socket is cut without a close handshake', async () => {
    const client = await connect();
    client.ws.send(JSON.stringify({ type: 'hello' }));
    await client.next('ready');
    client.ws.send(pcm(new Array(320).fill(100)));
    const call = calls.at(-1)!;
    let completed = false;
    call.transport.audio$.subscribe({ complete: () => (completed = true) });
    client.ws.terminate();
    await until(() => call.stopped && completed && server.browser.activeCalls() === 0, 'the call to be freed');
  });

  it('passes key presses to the agent and ends the call when the page hangs up', async () => {
    const client = await connect();
    client.ws.send(JSON.stringify({ type: 'hello' }));
    await client.next('ready');
    const call = calls.at(-1)!;
    const events: unknown[] = [];
    let audioDone = false;
    call.transport.events$.subscribe((event) => events.push(event));
    call.transport.audio$.subscribe({ complete: () => (audioDone = true) });
    client.ws.send(JSON.stringify({ type: 'dtmf', digit: '#' }));
    client.ws.send(JSON.stringify({ type: 'dtmf', digit: 'xx' }));
    expect(await client.next('error')).toMatchObject({ code: 'bad_message' });
    client.ws.send(JSON.stringify({ type: 'hangup', reason: 'done' }));
    await until(() => audioDone, 'the caller audio to complete');
    expect(events).toEqual([{ type: 'connected' }, { type: 'dtmf', digit: '#' }, { type: 'hangup', reason: 'done' }]);
    client.ws.close();
    await until(() => call.stopped && server.browser.activeCalls() === 0, 'the call to be freed');
  });

  it('refuses a declared sample rate other than 16 kHz', async () => {
    const client = await connect();
    client.ws.send(JSON.stringify({ type: 'hello', sampleRate: 48000 }));
    expect(await client.next('error')).toMatchObject({ code: 'unsupported_rate' });
    expect((await client.closed).code).toBe(1008);
  });

  it('closes a socket that never says hello', async () => {
    const quick = await startDemoServer({
      port: 0,
      agents: { default: 'x', agents: [] },
      startCall: () => ({ agent: 'x', mode: 'balanced', stop: () => undefined }),
    });
    quick.browser['options'].helloTimeoutMs = 100;
    const ws = new WebSocket(`${quick.url.replace('http', 'ws')}ws`);
    const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
    expect(code).toBe(1008);
    await quick.close();
  });

  it('stays up: serves the page after all of the above', async () => {
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="/app.js">');
    const app = await fetch(`${server.url}app.js`);
    expect(app.headers.get('content-type')).toContain('javascript');
    const missing = await fetch(`${server.url}nope`);
    expect(missing.status).toBe(404);
    const other = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${server.url.replace('http', 'ws')}elsewhere`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => undefined);
    });
    expect(other).toBe(404);
  });
});

describe('browser playout on the call\'s clock', () => {
  const clock = new VirtualClock();
  const transports: BrowserTransport[] = [];
  let paced: DemoServer;
  beforeAll(async () => {
    paced = await startDemoServer({
      port: 0,
      clock,
      agents: { default: 'silent', agents: [{ name: 'silent' }] },
      startCall: (transport, request) => {
        transports.push(transport as BrowserTransport);
        return { agent: 'silent', mode: request.mode ?? 'balanced', stop: () => undefined };
      },
    });
  });
  afterAll(async () => paced?.close());

  /** A page on the call: `received()` resolves once it has every message the server sent before. */
  async function page() {
    const ws = new WebSocket(`${paced.url.replace('http', 'ws')}ws`);
    let bytes = 0;
    const texts: string[] = [];
    ws.on('message', (data, isBinary) => (isBinary ? (bytes += (data as Buffer).length) : texts.push(JSON.parse(String(data)).type)));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'hello' }));
    await until(() => texts.includes('ready'), 'ready');
    const received = () => new Promise<void>((resolve) => (ws.once('pong', () => resolve()), ws.ping()));
    return { ws, texts, bytes: () => bytes, received, transport: transports.at(-1)! };
  }

  it('clear() tells the page at once and drops audio not yet sent', async () => {
    const client = await page();
    const startMs = clock.now();
    client.transport.play({ samples: new Int16Array(16000 * 2).fill(1000), sampleRate: 16000, timestampMs: 0 });
    await client.transport.playoutSent();
    clock.advanceTo(startMs + 100);
    await client.received();
    // 100 ms into the reply, sent 120 ms ahead: 220 ms of 16 kHz PCM16.
    expect(client.bytes()).toBe(220 * 32);
    client.transport.clear();
    await client.received();
    expect(client.texts.at(-1)).toBe('clear');
    clock.advanceTo(startMs + 300);
    await client.received();
    expect(client.bytes()).toBe(220 * 32);
    expect(client.transport.playedMs()).toBe(0);
    client.ws.close();
  });

  it('paces agent audio at real time, a little ahead, and converts other sample rates at the edge', async () => {
    const client = await page();
    const startMs = clock.now();
    client.transport.play({ samples: new Int16Array(24000).fill(2000), sampleRate: 24000, timestampMs: 0 });
    await client.transport.playoutSent();
    clock.advanceTo(startMs + 300);
    await client.received();
    // 300 ms in, 120 ms ahead.
    expect(client.bytes() / 32).toBe(420);
    clock.advanceTo(startMs + 2000);
    await client.transport.playoutSent();
    clock.advanceTo(startMs + 2000);
    await client.received();
    // The whole second, as 16 kHz.
    expect(client.bytes()).toBe(32_000);
    expect(client.transport.playedMs()).toBe(1000);
    client.ws.close();
  });
});
