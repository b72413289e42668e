import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidRequestError, SpeechClient } from '../../src/client/index.js';
import { sendJson, startFakeServer, type FakeServer, type SeenRequest } from '../support/client-fakes.js';

const SAMPLE = new URL('../fixtures/speech/slt_05.wav', import.meta.url).pathname;

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function formOf(request: SeenRequest): Promise<FormData> {
  return new Response(new Uint8Array(request.body), { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
}

function model(id: string) {
  return { _id: id, type: 'tts', title: id, state: 'trained', tags: [], visibility: 'private', like_count: 0, mark_count: 0, shared_count: 0, task_count: 0, author: { _id: 'u', nickname: 'n', avatar: '' }, created_at: '', updated_at: '' };
}

describe('voice models', () => {
  it('creates a model with voices from a path, a Buffer and a stream as one multipart request', async () => {
    server = await startFakeServer({ http: (_req, res) => sendJson(res, 201, model('m1')) });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    const created = await client.voiceModels.create({
      title: 'Mine',
      voices: [SAMPLE, Buffer.from('second'), Readable.from([Buffer.from('thi'), Buffer.from('rd')])],
      texts: ['one', 'two', 'three'],
      tags: ['a', 'b'],
      visibility: 'private',
      enhanceAudioQuality: false,
    });
    expect(created._id).toBe('m1');
    const seen = server.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/model');
    const form = await formOf(seen);
    expect(form.get('type')).toBe('tts');
    expect(form.get('train_mode')).toBe('fast');
    expect(form.get('title')).toBe('Mine');
    expect(form.getAll('texts')).toEqual(['one', 'two', 'three']);
    expect(form.getAll('tags')).toEqual(['a', 'b']);
    expect(form.get('enhance_audio_quality')).toBe('false');
    const voices = form.getAll('voices') as File[];
    expect(voices.map((file) => file.name)).toEqual(['slt_05.wav', 'voice-1.wav', 'voice-2.wav']);
    expect(await voices[2]!.text()).toBe('third');
  });

  it('refuses a create with mismatched texts before sending', async () => {
    server = await startFakeServer({ http: (_req, res) => sendJson(res, 201, model('m1')) });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    await expect(client.voiceModels.create({ title: 'x', voices: [Buffer.from('a')], texts: ['a', 'b'] })).rejects.toBeInstanceOf(InvalidRequestError);
    expect(server.requests).toHaveLength(0);
  });

  it('gets, updates and deletes by id', async () => {
    server = await startFakeServer({
      http: (req, res) => {
        if (req.method === 'DELETE') return res.writeHead(200).end();
        sendJson(res, 200, { ...model('m 1'), ...(req.method === 'PATCH' ? JSON.parse(req.body.toString()) : {}) });
      },
    });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    expect((await client.voiceModels.get('m 1'))._id).toBe('m 1');
    expect(((await client.voiceModels.update('m 1', { title: 'New' })) as { title: string }).title).toBe('New');
    await client.voiceModels.delete('m 1');
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /model/m%201', 'PATCH /model/m%201', 'DELETE /model/m%201']);
  });

  it('iterates over every page of the list', async () => {
    const all = Array.from({ length: 7 }, (_, i) => model(`m${i}`));
    server = await startFakeServer({
      http: (req, res) => {
        const url = new URL(req.url, 'http://x');
        const size = Number(url.searchParams.get('page_size'));
        const page = Number(url.searchParams.get('page_number'));
        const items = all.slice((page - 1) * size, page * size);
        sendJson(res, 200, { total: all.length, items, has_more: page * size < all.length });
      },
    });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    const ids: string[] = [];
    for await (const item of client.voiceModels.iterate({ page_size: 3, self: true, tag: ['x', 'y'] })) ids.push(item._id);
    expect(ids).toEqual(all.map((m) => m._id));
    expect(server.requests).toHaveLength(3);
    expect(server.requests[0]!.url).toBe('/model?page_size=3&self=true&tag=x&tag=y&page_number=1');
  });
});

describe('wallet and voice design', () => {
  it('reads the package and the API credit of self', async () => {
    server = await startFakeServer({
      http: (req, res) => sendJson(res, 200, req.url.includes('package') ? { user_id: 'u', type: 'free', total: 10, balance: 5 } : { _id: 'c', user_id: 'u', credit: '12.5', has_phone_sha256: false }),
    });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    expect((await client.wallet.package()).balance).toBe(5);
    expect((await client.wallet.apiCredit('self', { check_free_credit: true })).credit).toBe('12.5');
    expect(server.requests.map((r) => r.url)).toEqual(['/wallet/self/package', '/wallet/self/api-credit?check_free_credit=true']);
  });

  it('designs voices and decodes each candidate audio', async () => {
    const wav = Buffer.from('RIFF-candidate');
    server = await startFakeServer({
      http: (_req, res) =>
        sendJson(res, 200, { candidates: [{ id: 'c0', index: 0, audio_base64: wav.toString('base64'), sample_rate: 24000, duration_ms: 900, text: 'hi', instruct: 'warm', language: 'en' }] }),
    });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    const candidates = await client.designVoice({ instruction: 'a warm voice', n: 1 });
    expect(Buffer.from(candidates[0]!.audio)).toEqual(wav);
    expect(server.requests[0]!.headers.model).toBe('voice-design-1');
    expect(JSON.parse(server.requests[0]!.body.toString())).toEqual({ instruction: 'a warm voice', n: 1 });
  });
});
