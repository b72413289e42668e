/**
 * Agent audio to a carrier: what one tick sends (media frames and the mark after them) leaves in one socket
 * write, in order; and each carrier's media frame is the JSON it always was.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { exotelCarrier, plivoCarrier, telnyxCarrier, twilioCarrier, TelephonyTransport } from '../../src/transports/telephony/index.js';
import { muLaw8k, type MediaFormat } from '../../src/transports/telephony/media-format.js';
import { decodeMuLaw, encodeMuLaw } from '../../src/audio/index.js';

let server: WebSocketServer;
beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
});
afterAll(async () => new Promise((resolve) => server.close(resolve)));

/** A carrier's side and the agent's transport on one loopback stream; `writes` counts the agent socket's writes. */
async function line(network: boolean) {
  const accepted = new Promise<{ ws: WebSocket; socket: Socket }>((resolve) => server.once('connection', (ws, request) => resolve({ ws, socket: request.socket as Socket })));
  const carrier = new WebSocket(`ws://127.0.0.1:${(server.address() as { port: number }).port}`);
  const received: Array<{ event: string; media?: { payload: string }; mark?: { name: string } }> = [];
  carrier.on('message', (data) => received.push(JSON.parse(String(data))));
  await new Promise((resolve) => carrier.once('open', resolve));
  const { ws, socket } = await accepted;
  const writes = { count: 0 };
  const writev = socket._writev!.bind(socket);
  const write = socket._write.bind(socket);
  socket._writev = (chunks, callback) => (writes.count++, writev(chunks, callback));
  socket._write = (chunk, encoding, callback) => (writes.count++, write(chunk, encoding, callback));
  const transport = new TelephonyTransport(ws, { streamSid: 'MZ1', traceContext: {}, customParameters: {}, ...(network ? { network: socket } : {}) });
  return { transport, received, writes, close: () => carrier.close() };
}

const speech = (ms: number, from = 0) => Int16Array.from({ length: ms * 8 }, (_, i) => Math.round(8000 * Math.sin((from + i) / 7)));

describe('outbound media writes', () => {
  it('sends one tick\'s frames and marks in one write, in order', async () => {
    const { transport, received, writes, close } = await line(true);
    const first = speech(100);
    const second = speech(40, first.length);
    transport.play({ samples: first, sampleRate: 8000, timestampMs: 0 });
    transport.play({ samples: second, sampleRate: 8000, timestampMs: 100 });
    await expect.poll(() => received.length).toBe(9);
    expect(writes.count).toBe(1);
    expect(received.map((m) => m.event)).toEqual(['media', 'media', 'media', 'media', 'media', 'mark', 'media', 'media', 'mark']);
    expect(received.filter((m) => m.mark).map((m) => m.mark!.name)).toEqual(['g0-1-800', 'g0-2-1120']);
    const heard = decodeMuLaw(new Uint8Array(Buffer.concat(received.filter((m) => m.media).map((m) => Buffer.from(m.media!.payload, 'base64')))));
    const sent = new Int16Array([...first, ...second]);
    expect(Array.from(heard)).toEqual(Array.from(decodeMuLaw(encodeMuLaw(sent))));

    // The next tick is a write of its own.
    await new Promise((resolve) => setTimeout(resolve, 20));
    transport.play({ samples: speech(20), sampleRate: 8000, timestampMs: 140 });
    await expect.poll(() => received.length).toBe(11);
    expect(writes.count).toBe(2);
    close();
  });

  it('writes each message alone without the network socket (a driver\'s fake line)', async () => {
    const { transport, received, writes, close } = await line(false);
    transport.play({ samples: speech(60), sampleRate: 8000, timestampMs: 0 });
    await expect.poll(() => received.length).toBe(4);
    expect(writes.count).toBe(4);
    close();
  });
});

describe('media frames as JSON', () => {
  const payload = encodeMuLaw(speech(20));
  const base64 = Buffer.from(payload).toString('base64');
  const sid = 'MZ"quoted\\sid';
  const l16: MediaFormat = { codec: 'l16', sampleRate: 16000, byteOrder: 'little' };
  it.each([
    ['twilio', twilioCarrier.media(sid, muLaw8k, payload), JSON.stringify({ event: 'media', streamSid: sid, media: { payload: base64 } })],
    ['telnyx', telnyxCarrier.media(sid, muLaw8k, payload), JSON.stringify({ event: 'media', media: { payload: base64 } })],
    ['exotel', exotelCarrier.media(sid, muLaw8k, payload), JSON.stringify({ event: 'media', stream_sid: sid, media: { payload: base64 } })],
    ['plivo', plivoCarrier.media(sid, l16, payload), JSON.stringify({ event: 'playAudio', media: { contentType: 'audio/x-l16', sampleRate: 16000, payload: base64 } })],
  ])('%s: the same text as the message serialised whole', (_carrier, framed, expected) => {
    expect(framed).toBe(expected);
  });
});
