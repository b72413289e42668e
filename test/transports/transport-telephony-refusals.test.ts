import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import type { TransportEvent } from '../../src/agent/contracts.js';
import { AgentBusyError, type CallRequest } from '../../src/transports/call-request.js';
import {
  busyLineDefaults,
  StreamTokens,
  TelephonyEndpoint,
  UnsupportedMediaFormatError,
  vonageCarrier,
  type TelephonyEndpointOptions,
  type TelephonyTransport,
} from '../../src/transports/telephony/index.js';
import { twilioStart } from '../support/twilio-stream-messages.js';

/**
 * What a carrier and its caller observe when a media stream is refused, cannot start, or misbehaves: close codes
 * and reasons, frames sent back, calls counted and sockets left open. The agent is a double that records its calls.
 */

interface Call {
  transport: TelephonyTransport;
  request: CallRequest;
  events: TransportEvent[];
  samples: number;
  stopped: boolean;
}

interface Line {
  endpoint: TelephonyEndpoint;
  url: string;
  calls: Call[];
  errors: Array<{ error: unknown; streamSid: string | undefined }>;
}

type Agent = (call: Call) => void | Promise<void>;

const servers: Server[] = [];
const carriers = new Set<WebSocket>();
afterEach(async () => {
  for (const ws of carriers) ws.terminate();
  carriers.clear();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A TelephonyEndpoint on a real HTTP server whose agent runs `agent` (which may throw) on each call it starts. */
async function line(options: Partial<TelephonyEndpointOptions> = {}, agent: Agent = () => undefined): Promise<Line> {
  const calls: Call[] = [];
  const errors: Line['errors'] = [];
  const endpoint = new TelephonyEndpoint({
    ...options,
    onError: (error, streamSid) => errors.push({ error, streamSid }),
    startCall: async (transport, request) => {
      const call: Call = { transport, request, events: [], samples: 0, stopped: false };
      calls.push(call);
      transport.events$.subscribe((event) => call.events.push(event));
      transport.audio$.subscribe((frame) => (call.samples += frame.samples.length));
      await agent(call);
      return { agent: 'double', mode: 'balanced', stop: () => (call.stopped = true) };
    },
  });
  const server = createServer((_request, response) => response.writeHead(404).end());
  server.on('upgrade', (request, socket, head) => {
    if (!endpoint.handleUpgrade(request, socket, head)) socket.destroy();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, errors };
}

type Outbound = { event: string; streamSid?: string; media?: { payload: string }; mark?: { name: string } };

/** The carrier's side of one media stream: what it received and how the socket closed. */
async function dial(url: string) {
  const ws = new WebSocket(url);
  carriers.add(ws);
  const received: Outbound[] = [];
  ws.on('message', (data: Buffer, isBinary) => {
    if (!isBinary) received.push(JSON.parse(String(data)) as Outbound);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const send = (message: object) => ws.send(JSON.stringify(message));
  return { ws, received, closed, send };
}

const media = (bytes = 160) => ({ event: 'media', streamSid: 'MZ0001', media: { track: 'inbound', chunk: '1', timestamp: '20', payload: Buffer.alloc(bytes, 0xff).toString('base64') } });
const dtmf = (digit: string) => ({ event: 'dtmf', streamSid: 'MZ0001', sequenceNumber: '3', dtmf: { track: 'inbound_track', digit } });
const stop = { event: 'stop', sequenceNumber: '9', streamSid: 'MZ0001', stop: { accountSid: 'AC0001', callSid: 'CA0001' } };

/** Waits until the endpoint holds no call and no socket. */
async function released(l: Line): Promise<void> {
  await vi.waitFor(() => expect([l.endpoint.activeCalls(), l.endpoint.openSockets()]).toEqual([0, 0]));
}

describe('telephony endpoint: refused streams', () => {
  it('closes a stream without a valid stream token with 1008 before any agent starts, and admits a token from the parameters or the URL', async () => {
    const tokens = new StreamTokens();
    const l = await line({ tokens });
    const refused = await dial(`${l.url}/telephony`);
    refused.send(twilioStart({ token: 'forged' }));
    expect(await refused.closed).toEqual({ code: 1008, reason: 'stream not authorised' });
    expect(l.calls).toHaveLength(0);
    expect(l.errors).toEqual([{ error: expect.objectContaining({ name: 'StreamRefusedError', message: expect.stringMatching(/^twilio stream refused: no valid stream token/) }), streamSid: 'MZ0001' }]);
    await released(l);

    const inParameters = await dial(`${l.url}/telephony`);
    inParameters.send(twilioStart({ token: tokens.issue('CA0001') }));
    const inQuery = await dial(`${l.url}/telephony?token=${encodeURIComponent(tokens.issue('CA0002'))}`);
    inQuery.send(twilioStart({}, 'CA0002'));
    await vi.waitFor(() => expect(l.calls.map((c) => c.transport.callSid).sort()).toEqual(['CA0001', 'CA0002']));
    expect(l.endpoint.activeCalls()).toBe(2);
    expect([inParameters.ws.readyState, inQuery.ws.readyState]).toEqual([WebSocket.OPEN, WebSocket.OPEN]);
    expect(l.errors).toHaveLength(1);
  });

  it('closes a stream without the access key with 1008, saying what to add, and admits the key from the URL or the parameters', async () => {
    const l = await line({ accessKey: 's3cret' });
    for (const [path, parameters] of [['/telephony', {}], ['/telephony?key=wrong', {}], ['/telephony', { key: 's3cret-but-longer' }]] as const) {
      const refused = await dial(`${l.url}${path}`);
      refused.send(twilioStart(parameters));
      expect(await refused.closed).toEqual({ code: 1008, reason: 'stream not authorised' });
    }
    expect(l.calls).toHaveLength(0);
    expect(l.errors.map((e) => (e.error as Error).message)).toEqual(Array(3).fill('twilio stream refused: no valid access key (add ?key=… to the stream URL)'));

    const inQuery = await dial(`${l.url}/telephony?key=s3cret`);
    inQuery.send(twilioStart());
    const inParameters = await dial(`${l.url}/telephony`);
    inParameters.send(twilioStart({ key: 's3cret' }, 'CA0002'));
    await vi.waitFor(() => expect(l.calls).toHaveLength(2));
    expect(l.errors).toHaveLength(3);
  });

  it('closes a stream that sends no start within startTimeoutMs with 1008, but not one that started', async () => {
    const l = await line({ startTimeoutMs: 100 });
    const silent = await dial(`${l.url}/telephony`);
    const started = await dial(`${l.url}/telephony`);
    started.send(twilioStart());
    expect(await silent.closed).toEqual({ code: 1008, reason: 'no start event' });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(started.ws.readyState).toBe(WebSocket.OPEN);
    expect(l.endpoint.activeCalls()).toBe(1);
  });

  it('closes a stream announcing a format other than 8 kHz mu-law with 1003 and reports why, starting no agent', async () => {
    const l = await line();
    const stream = await dial(`${l.url}/telephony`);
    const wideband = twilioStart();
    wideband.start.mediaFormat = { encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 };
    stream.send(wideband);
    expect(await stream.closed).toEqual({ code: 1003, reason: 'unsupported media format' });
    expect(l.calls).toHaveLength(0);
    expect(l.errors).toEqual([{ error: expect.any(UnsupportedMediaFormatError), streamSid: undefined }]);
    expect((l.errors[0]!.error as Error).message).toMatch(/audio\/x-l16\/16000/);
    await released(l);
  });

  it("ends only the stream whose message the carrier's parser fails on (1011), reporting the error", async () => {
    const broken = new TypeError('parser bug');
    const l = await line({ carrier: { ...vonageCarrier, parse: () => { throw broken; } }, path: '/vonage' });
    const stream = await dial(`${l.url}/vonage`);
    stream.send({ event: 'websocket:connected', 'content-type': 'audio/l16;rate=16000' });
    expect(await stream.closed).toEqual({ code: 1011, reason: 'media-stream message could not be read' });
    expect(l.errors).toEqual([{ error: broken, streamSid: undefined }]);
    expect(l.calls).toHaveLength(0);
    await released(l);
  });

  it('only takes upgrades on its path (/telephony by default)', async () => {
    const l = await line();
    await expect(dial(`${l.url}/elsewhere`)).rejects.toThrow();
    await dial(`${l.url}/telephony`);
    await vi.waitFor(() => expect(l.endpoint.openSockets()).toBe(1));
  });
});

describe('telephony endpoint: agents that cannot take the call', () => {
  it('plays a busy line when the agent is full, frees the call at once, and closes 1000 once the carrier echoes the mark', async () => {
    const l = await line({}, () => {
      throw new AgentBusyError('full', 5_000);
    });
    const stream = await dial(`${l.url}/telephony`);
    stream.send(twilioStart());
    await vi.waitFor(() => expect(stream.received.at(-1)?.event).toBe('mark'));
    const bursts = busyLineDefaults.bursts * 2 - 1;
    const toneBytes = stream.received.filter((m) => m.event === 'media').map((m) => Buffer.from(m.media!.payload, 'base64').length);
    expect(toneBytes.reduce((a, b) => a + b, 0)).toBe((bursts * busyLineDefaults.cadenceMs * 8000) / 1000);
    expect(stream.received.every((m) => m.streamSid === 'MZ0001')).toBe(true);
    expect(l.endpoint.activeCalls()).toBe(0);
    expect(l.calls[0]!.events.at(-1)).toEqual({ type: 'hangup', reason: 'agent busy' });
    expect(stream.ws.readyState).toBe(WebSocket.OPEN);

    stream.send({ event: 'mark', sequenceNumber: '2', streamSid: 'MZ0001', mark: { name: stream.received.at(-1)!.mark!.name } });
    expect(await stream.closed).toEqual({ code: 1000, reason: 'agent busy' });
    expect(l.errors).toEqual([]);
    await released(l);
  });

  it.each([
    ['rejects', async () => Promise.reject(new Error('no recognizer'))],
    ['throws', () => {
      throw new Error('no recognizer');
    }],
  ])('closes the stream with 1011 and reports the error when starting the agent %s', async (_how, agent) => {
    const l = await line({}, agent);
    const stream = await dial(`${l.url}/telephony`);
    stream.send(twilioStart());
    expect(await stream.closed).toEqual({ code: 1011, reason: 'call could not start' });
    expect(l.errors).toEqual([{ error: new Error('no recognizer'), streamSid: 'MZ0001' }]);
    expect(stream.received).toEqual([]);
    await released(l);
    expect(l.calls[0]!.events.at(-1)).toMatchObject({ type: 'hangup' });
  });
});

describe('telephony endpoint: stream life', () => {
  it('passes the request from the URL query and the start parameters (which win) to the agent', async () => {
    const l = await line();
    const stream = await dial(`${l.url}/telephony?agent=front-desk&mode=low-latency&tracestate=vendor%3Dq`);
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    stream.send(twilioStart({ agent: 'receptionist', traceparent, tracestate: 'vendor=p' }));
    await vi.waitFor(() => expect(l.calls).toHaveLength(1));
    expect(l.calls[0]!.request).toEqual({ traceparent, tracestate: 'vendor=p', agent: 'receptionist', mode: 'low-latency' });
    expect(l.calls[0]!.transport.customParameters).toMatchObject({ agent: 'receptionist', mode: 'low-latency' });
    expect(l.calls[0]!.transport.traceContext).toEqual({ traceparent, tracestate: 'vendor=p' });

    const unknownMode = await dial(`${l.url}/telephony`);
    unknownMode.send(twilioStart({ mode: 'turbo' }));
    await vi.waitFor(() => expect(l.calls).toHaveLength(2));
    expect(l.calls[1]!.request.mode).toBeUndefined();
  });

  it('ignores media, marks, DTMF and binary frames before start, reports the binary frame, and still starts', async () => {
    const l = await line();
    const stream = await dial(`${l.url}/telephony`);
    stream.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    stream.send(media());
    stream.send({ event: 'mark', streamSid: 'MZ0001', mark: { name: 'g0-1-160' } });
    stream.send(dtmf('5'));
    stream.ws.send(Buffer.alloc(160, 0xff), { binary: true });
    stream.send(twilioStart());
    stream.send(media());
    await vi.waitFor(() => expect(l.calls[0]?.samples).toBe(160));
    expect(l.calls[0]!.events).toEqual([{ type: 'connected' }]);
    expect(l.errors).toEqual([{ error: expect.objectContaining({ name: 'MediaStreamMessageError' }), streamSid: undefined }]);
    expect(stream.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('starts one agent however many starts arrive, and on stop ends it, closes 1000 and stops the session', async () => {
    const l = await line();
    const stream = await dial(`${l.url}/telephony`);
    stream.send(twilioStart());
    stream.send(twilioStart({ agent: 'second' }));
    stream.send(dtmf('7'));
    await vi.waitFor(() => expect(l.calls[0]?.events.at(-1)).toEqual({ type: 'dtmf', digit: '7' }));
    expect(l.calls).toHaveLength(1);
    expect(l.endpoint.activeCalls()).toBe(1);

    stream.send(stop);
    expect(await stream.closed).toEqual({ code: 1000, reason: 'stream stopped' });
    expect(l.calls[0]!.events.at(-1)).toEqual({ type: 'hangup', reason: 'stream stopped' });
    await released(l);
    expect(l.calls[0]!.stopped).toBe(true);
  });

  it('closes a stream stopped before it started with 1000, starting no agent', async () => {
    const l = await line();
    const stream = await dial(`${l.url}/telephony`);
    stream.send(stop);
    expect(await stream.closed).toEqual({ code: 1000, reason: 'stream stopped' });
    expect(l.calls).toHaveLength(0);
    await released(l);
  });

  it('reports a socket error (an oversized frame: 1009) with the stream it belongs to and frees the call', async () => {
    const l = await line();
    const early = await dial(`${l.url}/telephony`);
    early.ws.send('x'.repeat(70 * 1024));
    expect((await early.closed).code).toBe(1009);
    const late = await dial(`${l.url}/telephony`);
    late.send(twilioStart());
    await vi.waitFor(() => expect(l.calls).toHaveLength(1));
    late.ws.send('x'.repeat(70 * 1024));
    expect((await late.closed).code).toBe(1009);
    expect(l.errors).toEqual([
      { error: expect.any(RangeError), streamSid: undefined },
      { error: expect.any(RangeError), streamSid: 'MZ0001' },
    ]);
    await released(l);
    expect(l.calls[0]!.stopped).toBe(true);
  });

  it('close() drops every open stream and stops the calls on them', async () => {
    const l = await line();
    const started = await dial(`${l.url}/telephony`);
    started.send(twilioStart());
    const waiting = await dial(`${l.url}/telephony`);
    await vi.waitFor(() => expect(l.calls).toHaveLength(1));
    l.endpoint.close();
    expect((await started.closed).code).toBe(1006);
    expect((await waiting.closed).code).toBe(1006);
    await released(l);
    expect(l.calls[0]!.stopped).toBe(true);
  });

  it('takes a binary-audio carrier (Vonage): binary L16 frames reach the agent at the announced rate', async () => {
    const l = await line({ carrier: vonageCarrier, path: '/vonage' });
    const stream = await dial(`${l.url}/vonage`);
    stream.send({ event: 'websocket:connected', 'content-type': 'audio/l16;rate=16000', agent: 'receptionist' });
    stream.ws.send(Buffer.alloc(640), { binary: true });
    stream.ws.send(Buffer.alloc(640), { binary: true });
    await vi.waitFor(() => expect(l.calls[0]?.samples).toBe(640));
    expect(l.calls[0]!.request.agent).toBe('receptionist');
    expect(l.calls[0]!.transport.format).toMatchObject({ codec: 'l16', sampleRate: 16000 });
    expect(l.errors).toEqual([]);
  });
});
