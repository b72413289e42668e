import { encode } from '@msgpack/msgpack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeader, postJson, postMsgpack, startService, type RunningService } from '../support/service-harness.js';

let server: RunningService;

beforeAll(async () => {
  server = await startService();
});
afterAll(async () => {
  await server.close();
});

async function expectError(response: Response, status: number, message: RegExp) {
  const body = (await response.json()) as { status: number; message: string };
  expect(response.status).toBe(status);
  expect(body.status).toBe(status);
  expect(body.message).toMatch(message);
}

describe('authentication', () => {
  const routes = ['/v1/tts', '/v1/tts/stream/with-timestamp', '/v1/asr', '/v1/voice-design'];

  it.each(routes)('answers 401 {status, message} on %s without a key or with a wrong one', async (route) => {
    const missing = await fetch(`${server.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"hi"}' });
    await expectError(missing, 401, /Invalid Token/);
    const wrong = await fetch(`${server.url}${route}`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_wrong', 'content-type': 'application/json' },
      body: '{"text":"hi"}',
    });
    await expectError(wrong, 401, /Invalid Token/);
  });

  it('answers 401 before 404 for unknown paths, and 404 with a key', async () => {
    await expectError(await fetch(`${server.url}/v2/nothing`), 401, /Bearer/);
    await expectError(await fetch(`${server.url}/v2/nothing`, { headers: authHeader }), 404, /no route GET \/v2\/nothing/);
  });
});

describe('POST /v1/tts validation', () => {
  const tts = (body: unknown, headers: Record<string, string> = {}) => postJson(`${server.url}/v1/tts`, body, headers);

  it('answers 400 "missing field text" when text is absent', async () => {
    await expectError(await tts({ format: 'wav' }), 400, /^missing field text$/);
  });

  it('answers 422 with an array of {loc, type, msg, ctx, in} for every field out of range', async () => {
    const response = await tts({
      text: 'hi',
      temperature: 1.5,
      top_p: -0.1,
      chunk_length: 99,
      min_chunk_length: 101,
      early_stop_threshold: 2,
      prosody: { speed: 2.5 },
      format: 'flac',
      mp3_bitrate: 100,
      opus_bitrate: 12000,
      latency: 'fast',
      normalize: 'yes',
      max_new_tokens: 1.5,
    });
    expect(response.status).toBe(422);
    const issues = (await response.json()) as { loc: string[]; type: string; msg: string; ctx?: string; in?: string }[];
    expect(Array.isArray(issues)).toBe(true);
    const byField = new Map(issues.map((issue) => [issue.loc.slice(1).join('.'), issue]));
    for (const field of [
      'temperature', 'top_p', 'chunk_length', 'min_chunk_length', 'early_stop_threshold', 'prosody.speed',
      'format', 'mp3_bitrate', 'opus_bitrate', 'latency', 'normalize', 'max_new_tokens',
    ]) {
      const issue = byField.get(field);
      expect(issue, field).toBeDefined();
      expect(issue!.loc[0]).toBe('body');
      expect(issue!.in).toBe('body');
      expect(typeof issue!.type).toBe('string');
      expect(issue!.msg.length).toBeGreaterThan(5);
    }
    expect(byField.get('prosody.speed')!.msg).toBe('speed must be in [0.5, 2.0]');
    expect(byField.get('temperature')!.type).toBe('less_than_equal');
    expect(JSON.parse(byField.get('temperature')!.ctx!)).toEqual({ le: 1 });
  });

  it('answers 400 naming the supported rates for a rate the format lacks', async () => {
    await expectError(await tts({ text: 'hi', format: 'mp3', sample_rate: 22050 }), 400, /Invalid sample rate 22050 for format mp3\. Supported: 32000, 44100/);
    await expectError(await tts({ text: 'hi', format: 'opus', sample_rate: 44100 }), 400, /Supported: 48000/);
    await expectError(await tts({ text: 'hi', format: 'wav', sample_rate: 48000 }), 400, /8000, 16000, 24000, 32000, 44100/);
  });

  it('answers 400 for an unknown reference_id, an unknown model and a speaker index without a voice', async () => {
    await expectError(await tts({ text: 'hi', reference_id: 'no-such-voice' }), 400, /reference_id 'no-such-voice'/);
    await expectError(await tts({ text: 'hi', reference_id: ['slt', 'nope'] }), 400, /reference_id 'nope'/);
    await expectError(await tts({ text: 'hi' }, { model: 's9-ultra' }), 400, /unknown model 's9-ultra'.*s1, s2-pro, s2\.1-pro, s2\.1-pro-free/);
    await expectError(
      await tts({ text: '<|speaker:0|>Hello. <|speaker:2|>Hi.', reference_id: ['slt', 'rms'] }),
      400,
      /<\|speaker:2\|> but only 2 speakers/,
    );
    await expectError(await tts({ text: '<|speaker:1|>Hi.' }), 400, /<\|speaker:1\|> but only 1 speaker/);
  });

  it('answers 400 for inline references in JSON and for text with nothing to say', async () => {
    await expectError(await tts({ text: 'hi', references: [{ audio: 'AAAA', text: 'x' }] }), 400, /MessagePack/);
    await expectError(await tts({ text: '   ' }), 400, /nothing to speak/);
  });

  it('answers 415 for a content type other than JSON or MessagePack', async () => {
    const plain = await fetch(`${server.url}/v1/tts`, { method: 'POST', headers: { ...authHeader, 'content-type': 'text/plain' }, body: 'hello' });
    await expectError(plain, 415, /application\/json or application\/msgpack/);
    const form = new FormData();
    form.set('text', 'hello');
    await expectError(await fetch(`${server.url}/v1/tts`, { method: 'POST', headers: authHeader, body: form }), 415, /application\/json/);
  });

  it('answers 400 for malformed JSON and malformed or hostile MessagePack', async () => {
    const badJson = await fetch(`${server.url}/v1/tts`, { method: 'POST', headers: { ...authHeader, 'content-type': 'application/json' }, body: '{"text": ' });
    await expectError(badJson, 400, /JSON/);
    const send = (bytes: Uint8Array) =>
      fetch(`${server.url}/v1/tts`, { method: 'POST', headers: { ...authHeader, 'content-type': 'application/msgpack' }, body: Buffer.from(bytes) });
    await expectError(await send(new Uint8Array([0x81, 0xa4, 0x74])), 400, /MessagePack.*truncated/);
    await expectError(await send(new Uint8Array([0xc1])), 400, /not a MessagePack type/);
    await expectError(await send(new Uint8Array([...encode({ text: 'hi' }), 0x00])), 400, /after the end/);
    const deep = new Uint8Array(1000).fill(0x91);
    await expectError(await send(deep), 400, /nesting deeper/);
    const hugeArray = new Uint8Array([0xdd, 0xff, 0xff, 0xff, 0xff]);
    await expectError(await send(hugeArray), 400, /over the limit/);
    const hugeString = new Uint8Array([0xdb, 0x7f, 0xff, 0xff, 0xff, 0x41]);
    await expectError(await send(hugeString), 400, /over the limit/);
    await expectError(await send(encode([1, 2, 3])), 400, /TTSRequest object/);
    await expectError(await postMsgpack(`${server.url}/v1/tts`, 'just a string'), 400, /TTSRequest object/);
  });

  it('answers 413 for a body over the route limit without reading it all', async () => {
    const small = await startService({ limits: { ttsBodyBytes: 64 * 1024 } });
    try {
      const body = JSON.stringify({ text: 'a'.repeat(200 * 1024) });
      await expectError(await postJson(`${small.url}/v1/tts`, JSON.parse(body)), 413, /too large/);
    } finally {
      await small.close();
    }
  });

  it('answers 400 for text over the character limit', async () => {
    await expectError(await tts({ text: 'word '.repeat(21_000) }), 400, /limit is 100000/);
  });
});
