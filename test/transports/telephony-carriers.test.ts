import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, type RawData } from 'ws';
import { bytesToInt16, decodeALaw, decodeMuLaw, encodeALaw, encodeMuLaw, int16ToBytes, parseWav, type AudioFrame } from '../../src/audio/index.js';
import type { TransportEvent } from '../../src/agent/contracts.js';
import { startDemoServer, type DemoServer } from '../../src/transports/browser/index.js';
import type { CarrierName, TelephonyTransport } from '../../src/transports/telephony/index.js';

// Simulated carriers, each speaking its documented media-stream shapes: Telnyx (AsyncAPI "Stream call media over
// WebSocket"), Plivo (audio streams: playAudio / checkpoint / playedStream / clearAudio), Vonage (websocket:connected,
// binary L16, notify / clear), Exotel (Voicebot applet: snake_case, raw 16-bit PCM).

interface Call {
  transport: TelephonyTransport;
  frames: AudioFrame[];
  events: TransportEvent[];
}
const calls: Call[] = [];
const errors: unknown[] = [];
let server: DemoServer;

beforeAll(async () => {
  server = await startDemoServer({
    port: 0,
    agents: { default: 'recorder', agents: [{ name: 'recorder' }] },
    onError: (error) => errors.push(error),
    startCall: (transport) => {
      const call: Call = { transport: transport as TelephonyTransport, frames: [], events: [] };
      calls.push(call);
      transport.audio$.subscribe((frame) => call.frames.push(frame));
      transport.events$.subscribe((event) => call.events.push(event));
      return { agent: 'recorder', mode: 'balanced', stop: () => undefined };
    },
  });
});
afterAll(async () => server?.close());

const be16 = (samples: Int16Array) => {
  const out = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => out.writeInt16BE(s, i * 2));
  return out;
};
const fromBe16 = (bytes: Buffer) => {
  const out = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16BE(i * 2);
  return out;
};
const le16 = (samples: Int16Array) => Buffer.from(int16ToBytes(samples));
const fromLe16 = (bytes: Buffer) => bytesToInt16(new Uint8Array(bytes));
const b64 = (bytes: Buffer | Uint8Array) => Buffer.from(bytes).toString('base64');
const json = (value: unknown) => JSON.stringify(value);

interface Simulated {
  carrier: CarrierName;
  rate: 8000 | 16000;
  code: (samples: Int16Array) => Buffer;
  decode: (bytes: Buffer) => Int16Array;
  start: (format?: { encoding: string; rate: number }) => string;
  media: (payload: Buffer) => string | Buffer;
  dtmf: (digit: string) => string;
  /** The coded audio in an outbound frame, or null when the frame is not audio. */
  audioOf: (frame: RawData, isBinary: boolean) => Buffer | null;
  markOf: (message: Record<string, unknown>) => string | undefined;
  echo: (name: string) => string;
  isClear: (message: Record<string, unknown>) => boolean;
  /** Bytes per outbound audio frame the carrier requires exactly, if it does. */
  exactFrameBytes?: number;
  unsupported: string;
}

const textOf = (frame: RawData) => JSON.parse(String(frame)) as Record<string, any>;

const simulated: Simulated[] = [
  {
    carrier: 'telnyx',
    rate: 16000,
    code: be16,
    decode: fromBe16,
    start: (f = { encoding: 'L16', rate: 16000 }) =>
      json({ event: 'start', sequence_number: '1', stream_id: 'ts-1', start: { user_id: 'u1', call_control_id: 'v3:cc-1', client_state: '', media_format: { encoding: f.encoding, sample_rate: f.rate, channels: 1 } } }),
    media: (p) => json({ event: 'media', sequence_number: '4', stream_id: 'ts-1', media: { track: 'inbound', chunk: '2', timestamp: '5', payload: b64(p) } }),
    dtmf: (digit) => json({ event: 'dtmf', stream_id: 'ts-1', occurred_at: '2026-01-01T00:00:00Z', sequence_number: '9', dtmf: { digit } }),
    audioOf: (frame, isBinary) => (isBinary ? null : textOf(frame).event === 'media' ? Buffer.from(textOf(frame).media.payload, 'base64') : null),
    markOf: (m) => (m['event'] === 'mark' ? (m['mark'] as { name: string }).name : undefined),
    echo: (name) => json({ event: 'mark', stream_id: 'ts-1', mark: { name } }),
    isClear: (m) => m['event'] === 'clear',
    unsupported: json({ event: 'start', stream_id: 'ts-2', start: { call_control_id: 'v3:cc-2', media_format: { encoding: 'OPUS', sample_rate: 16000, channels: 1 } } }),
  },
  {
    carrier: 'plivo',
    rate: 8000,
    code: (s) => Buffer.from(encodeMuLaw(s)),
    decode: (b) => decodeMuLaw(new Uint8Array(b)),
    start: () =>
      json({ event: 'start', sequenceNumber: 0, start: { callId: 'pc-1', streamId: 'ps-1', accountId: 'MA1', tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } }, extra_headers: 'agent=support,mode=low-latency' }),
    media: (p) => json({ event: 'media', sequenceNumber: 3, streamId: 'ps-1', media: { track: 'inbound', timestamp: '1000', chunk: 2, payload: b64(p) } }),
    dtmf: (digit) => json({ event: 'dtmf', sequenceNumber: 8, streamId: 'ps-1', dtmf: { track: 'inbound', digit, timestamp: '2000' } }),
    audioOf: (frame, isBinary) => {
      if (isBinary) return null;
      const m = textOf(frame);
      if (m.event !== 'playAudio') return null;
      expect(m.media).toMatchObject({ contentType: 'audio/x-mulaw', sampleRate: 8000 });
      return Buffer.from(m.media.payload, 'base64');
    },
    markOf: (m) => (m['event'] === 'checkpoint' && m['streamId'] === 'ps-1' ? (m['name'] as string) : undefined),
    echo: (name) => json({ event: 'playedStream', sequenceNumber: 12, streamId: 'ps-1', name }),
    isClear: (m) => m['event'] === 'clearAudio' && m['streamId'] === 'ps-1',
    unsupported: json({ event: 'start', start: { callId: 'pc-2', streamId: 'ps-2', mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 16000 } } }),
  },
  {
    carrier: 'vonage',
    rate: 16000,
    code: le16,
    decode: fromLe16,
    start: () => json({ event: 'websocket:connected', 'content-type': 'audio/l16;rate=16000', agent: 'support' }),
    media: (p) => p,
    dtmf: (digit) => json({ event: 'websocket:dtmf', digit, duration: 260 }),
    audioOf: (frame, isBinary) => (isBinary ? Buffer.from(frame as Buffer) : null),
    markOf: (m) => (m['action'] === 'notify' ? (m['payload'] as { name: string }).name : undefined),
    echo: (name) => json({ event: 'websocket:notify', payload: { name } }),
    isClear: (m) => m['action'] === 'clear',
    exactFrameBytes: 640,
    unsupported: json({ event: 'websocket:connected', 'content-type': 'audio/l16;rate=24000' }),
  },
  {
    carrier: 'exotel',
    rate: 8000,
    code: le16,
    decode: fromLe16,
    start: () =>
      json({ event: 'start', sequence_number: 1, stream_sid: 'es-1', start: { stream_sid: 'es-1', call_sid: 'ec-1', account_sid: 'ea', from: '+1', to: '+2', custom_parameters: { mode: 'balanced' }, media_format: { encoding: 'base64', sample_rate: '8000', bit_rate: '128kbps' } } }),
    media: (p) => json({ event: 'media', sequence_number: 3, stream_sid: 'es-1', media: { chunk: 2, timestamp: '40', payload: b64(p) } }),
    dtmf: (digit) => json({ event: 'dtmf', sequence_number: 9, stream_sid: 'es-1', dtmf: { duration: '200', digit } }),
    audioOf: (frame, isBinary) => {
      if (isBinary) return null;
      const m = textOf(frame);
      return m.event === 'media' && m.stream_sid === 'es-1' ? Buffer.from(m.media.payload, 'base64') : null;
    },
    markOf: (m) => (m['event'] === 'mark' && m['stream_sid'] === 'es-1' ? (m['mark'] as { name: string }).name : undefined),
    echo: (name) => json({ event: 'mark', sequence_number: 12, stream_sid: 'es-1', mark: { name } }),
    isClear: (m) => m['event'] === 'clear' && m['stream_sid'] === 'es-1',
    exactFrameBytes: 320,
    unsupported: json({ event: 'start', stream_sid: 'es-2', start: { stream_sid: 'es-2', media_format: { encoding: 'base64', sample_rate: '11025' } } }),
  },
];

async function open(path: string) {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}${path.slice(1)}`);
  const frames: { data: RawData; isBinary: boolean }[] = [];
  ws.on('message', (data, isBinary) => frames.push({ data, isBinary }));
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, frames, closed };
}

async function until(condition: () => boolean, what: string, timeoutMs = 4000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const speech = {
  8000: parseWav(readFileSync(new URL('../fixtures/calls/booking-8k-ulaw.wav', import.meta.url))).samples,
  16000: parseWav(readFileSync(new URL('../fixtures/calls/booking-16k.wav', import.meta.url))).samples,
};

describe.each(simulated)('$carrier media stream at /telephony/$carrier', (sim) => {
  it('decodes real caller speech in the announced format, passes DTMF, sends coded agent audio with a mark, counts the echo, clears', async () => {
    const before = calls.length;
    const { ws, frames } = await open(`/telephony/${sim.carrier}`);
    ws.send(sim.start());
    await until(() => calls.length === before + 1, 'the call to start');
    const call = calls.at(-1)!;
    expect(call.transport.carrier.name).toBe(sim.carrier);
    expect(call.transport.format.sampleRate).toBe(sim.rate);

    const caller = speech[sim.rate].subarray(sim.rate, sim.rate * 2); // one second of real speech
    const sent = sim.code(caller);
    const expected = sim.decode(sent);
    const chunkBytes = (sent.length / 50) | 0; // 20 ms frames
    for (let at = 0; at < sent.length; at += chunkBytes) ws.send(sim.media(sent.subarray(at, at + chunkBytes)));
    await until(() => call.frames.reduce((n, f) => n + f.samples.length, 0) >= expected.length, 'one second of caller audio');
    expect(call.frames.every((f) => f.sampleRate === sim.rate)).toBe(true);
    const heard = new Int16Array(expected.length);
    let offset = 0;
    for (const frame of call.frames) (heard.set(frame.samples, offset), (offset += frame.samples.length));
    expect(Array.from(heard)).toEqual(Array.from(expected));

    ws.send(sim.dtmf('5'));
    await until(() => call.events.some((e) => e.type === 'dtmf'), 'the DTMF event');
    expect(call.events.find((e) => e.type === 'dtmf')).toEqual({ type: 'dtmf', digit: '5' });

    const reply = speech[sim.rate].subarray(0, (sim.rate * 3) / 10); // 300 ms of real speech at the wire rate
    call.transport.play({ samples: reply, sampleRate: sim.rate, timestampMs: 0 });
    const texts = () => frames.filter((f) => !f.isBinary).map((f) => textOf(f.data));
    await until(() => texts().some((m) => sim.markOf(m)), 'the mark after the audio');
    const audio = frames.map((f) => sim.audioOf(f.data, f.isBinary)).filter((b): b is Buffer => b !== null);
    if (sim.exactFrameBytes) expect(audio.every((b) => b.length === sim.exactFrameBytes)).toBe(true);
    const played = sim.decode(Buffer.concat(audio));
    expect(played.length).toBe(reply.length);
    expect(Array.from(played)).toEqual(Array.from(sim.decode(sim.code(reply))));

    expect(call.transport.playedMs()).toBe(0);
    ws.send(sim.echo(sim.markOf(texts().find((m) => sim.markOf(m))!)!));
    await until(() => call.transport.playedMs() > 0, 'the echo to count');
    expect(call.transport.playedMs()).toBeCloseTo(300, 0);

    call.transport.clear();
    await until(() => texts().some((m) => sim.isClear(m)), 'the clear command');
    expect(call.transport.playedMs()).toBe(0);
    ws.close();
    await until(() => call.events.at(-1)?.type === 'hangup', 'the call to end');
  });

  it('refuses a format it cannot code with a clear error, before any call starts', async () => {
    const before = calls.length;
    const errorsBefore = errors.length;
    const { ws, closed } = await open(`/telephony/${sim.carrier}`);
    ws.send(sim.unsupported);
    expect(await closed).toBe(1003);
    expect(calls.length).toBe(before);
    expect(String(errors.slice(errorsBefore).at(-1))).toMatch(new RegExp(`UnsupportedMediaFormatError: ${sim.carrier}: unsupported media format`));
  });
});

describe('PCMA (A-law) on Telnyx', () => {
  it('is decoded as A-law, not mu-law', async () => {
    const before = calls.length;
    const { ws } = await open('/telephony/telnyx');
    ws.send(simulated[0]!.start({ encoding: 'PCMA', rate: 8000 }));
    await until(() => calls.length === before + 1, 'the call to start');
    const call = calls.at(-1)!;
    const coded = Buffer.from(encodeALaw(speech[8000].subarray(8000, 8800)));
    ws.send(simulated[0]!.media(coded));
    await until(() => call.frames.length > 0, 'caller audio');
    expect(Array.from(call.frames[0]!.samples)).toEqual(Array.from(decodeALaw(new Uint8Array(coded))));
    ws.close();
  });
});
