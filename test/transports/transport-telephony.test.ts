import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { decodeMuLaw, encodeMuLaw, parseWav, type AudioFrame } from '../../src/audio/index.js';
import type { TransportEvent } from '../../src/agent/contracts.js';
import { startDemoServer, type DemoServer } from '../../src/transports/browser/index.js';
import type { CallRequest } from '../../src/transports/call-request.js';
import type { TelephonyTransport } from '../../src/transports/telephony/index.js';
import { twilioStart } from '../support/twilio-stream-messages.js';

const calls: { transport: TelephonyTransport; request: CallRequest; frames: AudioFrame[]; events: TransportEvent[]; audioDone: boolean; stopped: boolean }[] = [];
let server: DemoServer;

beforeAll(async () => {
  server = await startDemoServer({
    port: 0,
    agents: { default: 'recorder', agents: [{ name: 'recorder' }] },
    startCall: (transport, request) => {
      const call = { transport: transport as TelephonyTransport, request, frames: [] as AudioFrame[], events: [] as TransportEvent[], audioDone: false, stopped: false };
      calls.push(call);
      transport.audio$.subscribe({ next: (frame) => call.frames.push(frame), complete: () => (call.audioDone = true) });
      transport.events$.subscribe((event) => call.events.push(event));
      return { agent: 'recorder', mode: request.mode ?? 'balanced', stop: () => (call.stopped = true) };
    },
  });
});
afterAll(async () => server?.close());

type Outbound = { event: string; streamSid?: string; media?: { payload: string }; mark?: { name: string } };

async function connectStream(): Promise<{ ws: WebSocket; received: Outbound[]; closed: Promise<number> }> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}telephony`);
  const received: Outbound[] = [];
  ws.on('message', (data) => received.push(JSON.parse(String(data)) as Outbound));
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, received, closed };
}

async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('telephony media-stream transport', () => {
  it('takes the trace, agent and mode from customParameters and decodes inbound mu-law to 8 kHz frames', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const { ws } = await connectStream();
    ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
    ws.send(JSON.stringify(twilioStart({ traceparent, agent: 'receptionist', mode: 'low-latency' })));
    await until(() => calls.length === 1, 'the call to start');
    const call = calls[0]!;
    expect(call.request).toMatchObject({ traceparent, agent: 'receptionist', mode: 'low-latency' });
    expect(call.transport.traceContext.traceparent).toBe(traceparent);
    expect(call.transport.streamSid).toBe('MZ0001');
    expect(call.transport.callSid).toBe('CA0001');
    expect(call.transport.playoutRate).toBe(8000);

    const wav = parseWav(readFileSync(new URL('../fixtures/calls/booking-8k-ulaw.wav', import.meta.url)));
    expect(wav.encoding).toBe('mulaw');
    const codes = encodeMuLaw(wav.samples.subarray(0, 8000));
    for (let i = 0, chunk = 1; i < codes.length; i += 160, chunk++) {
      const payload = Buffer.from(codes.subarray(i, i + 160)).toString('base64');
      ws.send(JSON.stringify({ event: 'media', sequenceNumber: String(chunk + 1), media: { track: 'inbound', chunk: String(chunk), timestamp: String(chunk * 20), payload }, streamSid: 'MZ0001' }));
    }
    await until(() => call.frames.reduce((n, f) => n + f.samples.length, 0) === 8000, 'one second of audio');
    expect(call.frames.every((f) => f.sampleRate === 8000)).toBe(true);
    const received = new Int16Array(8000);
    let offset = 0;
    for (const frame of call.frames) {
      received.set(frame.samples, offset);
      offset += frame.samples.length;
    }
    expect(Array.from(received)).toEqual(Array.from(decodeMuLaw(codes)));
    for (let i = 1; i < call.frames.length; i++) expect(call.frames[i]!.timestampMs).toBeGreaterThanOrEqual(call.frames[i - 1]!.timestampMs + 20 - 1e-6);

    ws.send(JSON.stringify({ event: 'dtmf', streamSid: 'MZ0001', sequenceNumber: '60', dtmf: { track: 'inbound_track', digit: '7' } }));
    await until(() => call.events.some((e) => e.type === 'dtmf'), 'the dtmf event');
    expect(call.events.find((e) => e.type === 'dtmf')).toEqual({ type: 'dtmf', digit: '7' });
    expect(call.events[0]).toEqual({ type: 'connected' });

    ws.send(JSON.stringify({ event: 'stop', sequenceNumber: '61', streamSid: 'MZ0001', stop: { accountSid: 'AC0001', callSid: 'CA0001' } }));
    await until(() => call.audioDone && call.stopped && server.telephony.activeCalls() === 0, 'the call to end on stop');
    expect(call.events.at(-1)).toMatchObject({ type: 'hangup' });
  });

  it('sends agent audio as 20 ms mu-law media with a mark, counts played audio by echoed marks, and clears', async () => {
    const { ws, received } = await connectStream();
    ws.send(JSON.stringify(twilioStart({})));
    await until(() => calls.length === 2, 'the call to start');
    const call = calls[1]!;
    expect(call.transport.traceContext.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    const tone = new Int16Array(3200);
    for (let i = 0; i < tone.length; i++) tone[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000));
    call.transport.play({ samples: tone, sampleRate: 16000, timestampMs: 0 });
    await until(() => received.some((m) => m.event === 'mark'), 'the mark after the audio', 5000);
    await new Promise((resolve) => setTimeout(resolve, 150)); // the resampler's tail follows when the audio pauses
    const media = received.filter((m) => m.event === 'media');
    const bytes = media.map((m) => Buffer.from(m.media!.payload, 'base64'));
    expect(media.every((m) => m.streamSid === 'MZ0001')).toBe(true);
    expect(bytes.every((b) => b.length > 0 && b.length <= 160)).toBe(true);
    expect(bytes.filter((b) => b.length === 160).length).toBeGreaterThanOrEqual(8);
    const total = bytes.reduce((n, b) => n + b.length, 0);
    expect(Math.abs(total - 1600)).toBeLessThanOrEqual(16);
    const decoded = decodeMuLaw(new Uint8Array(Buffer.concat(bytes)));
    const level = Math.sqrt(decoded.slice(200, 1400).reduce((s, v) => s + v * v, 0) / 1200);
    expect(level).toBeGreaterThan(8000 * 0.6);
    expect(level).toBeLessThan(8000 * 0.8);

    expect(call.transport.playedMs()).toBe(0);
    const mark = received.filter((m) => m.event === 'mark').at(-1)!;
    ws.send(JSON.stringify({ event: 'mark', sequenceNumber: '5', streamSid: 'MZ0001', mark: { name: mark.mark!.name } }));
    await until(() => call.transport.playedMs() > 0, 'the echoed mark to count');
    expect(call.transport.playedMs()).toBeCloseTo(200, 0);

    call.transport.play({ samples: tone, sampleRate: 16000, timestampMs: 0 });
    const marksBefore = received.filter((m) => m.event === 'mark').length;
    await until(() => received.filter((m) => m.event === 'mark').length > marksBefore, 'the next mark');
    const staleMark = received.filter((m) => m.event === 'mark').at(-1)!;
    call.transport.clear();
    await until(() => received.at(-1)?.event === 'clear', 'the clear event');
    expect(received.at(-1)).toEqual({ event: 'clear', streamSid: 'MZ0001' });
    expect(call.transport.playedMs()).toBe(0);
    ws.send(JSON.stringify({ event: 'mark', streamSid: 'MZ0001', mark: { name: staleMark.mark!.name } }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(call.transport.playedMs()).toBe(0);
    ws.close();
    await until(() => call.stopped && server.telephony.activeCalls() === 0, 'the call to be freed');
  });

  it('survives garbage and a cut connection, and frees the call', async () => {
    const { ws } = await connectStream();
    ws.send('{{{ not json');
    ws.send(Buffer.from([0xff, 0x00, 0x13]));
    ws.send(JSON.stringify({ event: 'media', media: { payload: 'AAAA' } }));
    ws.send(JSON.stringify(twilioStart({ traceparent: 'not-a-traceparent' })));
    await until(() => calls.length === 3, 'the call to start');
    const call = calls[2]!;
    ws.send(JSON.stringify({ event: 'media', media: { payload: '!!!not base64!!!' } }));
    ws.send(JSON.stringify({ event: 'media' }));
    ws.send(JSON.stringify({ event: 'explode' }));
    ws.send(JSON.stringify({ event: 'media', media: { payload: Buffer.alloc(160, 0xff).toString('base64') } }));
    await until(() => call.frames.length >= 1, 'good media after garbage');
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.terminate();
    await until(() => call.stopped && call.audioDone && server.telephony.activeCalls() === 0 && server.telephony.openSockets() === 0, 'the call to be freed');
    expect((await fetch(server.url)).status).toBe(200);
  });

  it('refuses a stream in a media format other than 8 kHz mu-law', async () => {
    const { ws, closed } = await connectStream();
    const start = twilioStart({});
    start.start.mediaFormat = { encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 };
    ws.send(JSON.stringify(start));
    expect(await closed).toBe(1003);
    expect(server.telephony.activeCalls()).toBe(0);
  });
});
