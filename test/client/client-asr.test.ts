import { readFileSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { decode } from '@msgpack/msgpack';
import { afterEach, describe, expect, it } from 'vitest';
import { parseWav, rms } from '../../src/audio/index.js';
import { MalformedResponseError, SpeechClient } from '../../src/client/index.js';
import { sendJson, startFakeServer, type FakeServer, type SeenRequest } from '../support/client-fakes.js';

const CALL = new URL('../fixtures/calls/booking-16k.wav', import.meta.url).pathname;
const SHORT = new URL('../fixtures/speech/slt_03.wav', import.meta.url).pathname;

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function formOf(request: SeenRequest): Promise<FormData> {
  return new Response(new Uint8Array(request.body), { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
}

/** Answers each piece with its own duration and one segment from 0.1 s to 0.5 s. */
function fakeAsr() {
  return startFakeServer({
    http: async (request, res, index) => {
      const form = await formOf(request);
      const audio = new Uint8Array(await (form.get('audio') as Blob).arrayBuffer());
      const wav = parseWav(audio);
      const duration = wav.samples.length / wav.sampleRate;
      sendJson(res, 200, { text: `piece${index}`, duration, segments: [{ text: `piece${index}`, start: 0.1, end: 0.5 }] });
    },
  });
}

describe('transcribe', () => {
  it('sends one multipart request with language and ignore_timestamps=false for a file within limits', async () => {
    server = await fakeAsr();
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    const result = await client.transcribe(SHORT, { language: 'en' });
    expect(result.text).toBe('piece0');
    expect(server.requests).toHaveLength(1);
    const form = await formOf(server.requests[0]!);
    expect(form.get('language')).toBe('en');
    expect(form.get('ignore_timestamps')).toBe('false');
    expect(new Uint8Array(await (form.get('audio') as Blob).arrayBuffer())).toEqual(new Uint8Array(readFileSync(SHORT)));
    expect((form.get('audio') as File).name).toBe('slt_03.wav');
  });

  it('sends msgpack with the raw bytes when asked, and accepts a stream as input', async () => {
    server = await startFakeServer({ http: (_req, res) => sendJson(res, 200, { text: 'ok', duration: 1.8, segments: [] }) });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    await client.transcribe(createReadStream(SHORT), { encoding: 'msgpack', timestamps: false });
    const seen = server.requests[0]!;
    expect(seen.headers['content-type']).toBe('application/msgpack');
    const body = decode(seen.body) as { audio: Uint8Array; ignore_timestamps: boolean };
    expect(body.ignore_timestamps).toBe(true);
    expect(Buffer.from(body.audio)).toEqual(readFileSync(SHORT));
  });

  it('reads a msgpack answer, and turns malformed msgpack into MalformedResponseError', async () => {
    const { encode } = await import('@msgpack/msgpack');
    server = await startFakeServer({
      http: (_req, res, index) =>
        res
          .writeHead(200, { 'content-type': 'application/msgpack' })
          .end(index === 0 ? Buffer.from(encode({ text: 'packed', duration: 1.8, segments: [] })) : Buffer.from([0xc1, 0xff, 0x00])),
    });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    expect((await client.transcribe(SHORT)).text).toBe('packed');
    const error = await client.transcribe(SHORT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as MalformedResponseError).status).toBe(200);
  });

  it('splits a file over the byte limit at silences and offsets every segment', async () => {
    server = await fakeAsr();
    const limits = { maxBytes: 200_000, maxDurationMs: 60 * 60 * 1000, silenceSearchMs: 3_000 };
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k', asrLimits: limits });
    const whole = parseWav(readFileSync(CALL));
    const result = await client.transcribe(CALL);

    expect(server.requests.length).toBeGreaterThanOrEqual(3);
    let startSample = 0;
    const starts: number[] = [];
    for (const request of server.requests) {
      const form = await formOf(request);
      const bytes = new Uint8Array(await (form.get('audio') as Blob).arrayBuffer());
      expect(bytes.byteLength).toBeLessThanOrEqual(limits.maxBytes);
      const piece = parseWav(bytes);
      expect(piece.samples).toEqual(whole.samples.subarray(startSample, startSample + piece.samples.length));
      starts.push(startSample / whole.sampleRate);
      if (startSample > 0) {
        const around = whole.samples.subarray(startSample - 160, startSample + 160);
        expect(rms(around)).toBeLessThan(0.002);
      }
      startSample += piece.samples.length;
    }
    expect(startSample).toBe(whole.samples.length);
    expect(result.duration).toBeCloseTo(whole.samples.length / whole.sampleRate, 3);
    expect(result.text).toBe(server.requests.map((_r, i) => `piece${i}`).join(' '));
    expect(result.segments.map((segment) => segment.start)).toEqual(starts.map((start) => expect.closeTo(start + 0.1, 6)));
  });

  it('splits by the duration limit too', async () => {
    server = await fakeAsr();
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k', asrLimits: { maxDurationMs: 5_000, silenceSearchMs: 2_500 } as never });
    const result = await client.transcribe(CALL);
    expect(server.requests.length).toBeGreaterThanOrEqual(3);
    for (const segment of result.segments) expect(segment.end).toBeLessThanOrEqual(result.duration);
  });
});
