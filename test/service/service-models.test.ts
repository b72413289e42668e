import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav, parseWav, gatedLoudnessDb } from '../../src/audio/index.js';
import { EngineUnavailableError, isFliteVoice } from '../../src/engines/index.js';
import { authHeaders, fixture, modelForm, startHarness, testEngines, type Harness, type ModelFormInput, type TestUser } from '../support/service-store-harness.js';

let h: Harness;
let voice3s: Uint8Array;
let voiceShort: Uint8Array;

beforeAll(async () => {
  h = await startHarness();
  voice3s = await fixture('slt_00.wav');
  voiceShort = await fixture('slt_03.wav');
});
afterAll(async () => h?.close());

async function call(method: string, path: string, user: TestUser | undefined, body?: FormData | object) {
  const headers: Record<string, string> = authHeaders(user);
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(`${h.url}${path}`, { method, headers, body: payload });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, body: json, headers: response.headers };
}

async function create(user: TestUser, input: Partial<ModelFormInput> = {}) {
  const result = await call('POST', '/model', user, modelForm({ voices: [{ bytes: voice3s, name: 'a.wav' }], texts: ['hello i would like to book a table for two people tonight'], ...input }));
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body;
}

function expect422(result: { status: number; body: any }, loc: string[]) {
  expect(result.status, JSON.stringify(result.body)).toBe(422);
  expect(Array.isArray(result.body)).toBe(true);
  for (const issue of result.body) {
    expect(issue).toEqual({ loc: expect.any(Array), type: expect.any(String), msg: expect.any(String), in: expect.any(String) });
  }
  expect(result.body.map((issue: any) => issue.loc.join('.'))).toContain(loc.join('.'));
}

describe('POST /model', () => {
  it('creates a fast model with every ModelEntity field, quality per audio, ASR for untranscribed voices', async () => {
    const result = await call(
      'POST', '/model', h.users.alice,
      modelForm({ title: 'Warm narrator', description: 'calm', tags: ['calm', 'female'], voices: [{ bytes: voice3s, name: 'long.wav' }, { bytes: voiceShort, name: 'short.wav' }] }),
    );
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    const model = result.body;
    expect(Object.keys(model).sort()).toEqual([
      '_id', 'author', 'cover_image', 'created_at', 'default_text', 'description', 'dmca_taken_down', 'languages', 'like_count',
      'liked', 'lock_visibility', 'mark_count', 'marked', 'quality', 'samples', 'shared_count', 'source', 'state', 'tags',
      'task_count', 'title', 'train_mode', 'type', 'unliked', 'updated_at', 'visibility',
    ]);
    expect(model).toMatchObject({
      type: 'tts', title: 'Warm narrator', description: 'calm', train_mode: 'fast', state: 'trained', visibility: 'public',
      tags: ['calm', 'female'], like_count: 0, mark_count: 0, shared_count: 0, task_count: 0, lock_visibility: false,
      dmca_taken_down: false, default_text: '', liked: false, unliked: false, marked: false, samples: [], source: null,
      author: { _id: 'alice', nickname: 'alice', avatar: '' },
    });
    expect(model._id).toMatch(/^[0-9a-f]{32}$/);
    expect(Date.parse(model.created_at)).not.toBeNaN();
    expect(model.cover_image).toBe(`${h.url}/model/${model._id}/cover`);
    const [long, short] = model.quality.audios;
    expect(long).toMatchObject({ filename: 'long.wav', quality_passed: true, language: 'en' });
    expect(long.duration_ms).toBeGreaterThan(3400);
    expect(short).toMatchObject({ filename: 'short.wav', quality_passed: false });
    expect(short.quality_reason).toMatch(/too short/);
    expect(model.languages).toEqual(['en']);
    const stored = (await h.services.stores.models.get(model._id))!;
    expect(stored.samples[0]!.text.split(' ').length).toBeGreaterThan(3);
    expect(isFliteVoice(stored.voice.voice)).toBe(true);
    expect(stored.voice.voice).toBe('slt');
    expect(stored.voice.rate).toBeGreaterThan(0.5);
    const cover = await fetch(model.cover_image, { headers: authHeaders(h.users.bob) });
    expect(cover.headers.get('content-type')).toBe('image/png');
    const files = (await readdir(h.services.stores.files.modelDir(model._id))).sort();
    expect(files.filter((f) => f.startsWith('voice-'))).toEqual(['voice-0.wav', 'voice-1.wav']);
  });

  it('flags quiet and clipped audio and normalises stored samples unless told not to', async () => {
    const clean = parseWav(voice3s);
    const quiet = encodeWav(clean.samples.map((s) => Math.round(s / 400)), clean.sampleRate);
    const loud = encodeWav(clean.samples.map((s) => Math.max(-32768, Math.min(32767, s * 20))), clean.sampleRate);
    const text = 'hello i would like to book a table for two people tonight';
    const enhanced = await create(h.users.alice, { voices: [{ bytes: quiet, name: 'q.wav' }, { bytes: loud, name: 'l.wav' }], texts: [text, text] });
    expect(enhanced.quality.audios[0].quality_reason).toMatch(/too quiet/);
    expect(enhanced.quality.audios[1].quality_reason).toMatch(/clipped/);
    expect(enhanced.quality.audios.map((a: any) => a.quality_passed)).toEqual([false, false]);
    const storedQuiet = parseWav(await import('node:fs/promises').then((fs) => fs.readFile(h.services.stores.models.filePath(enhanced._id, 'voice-0.wav'))));
    expect(gatedLoudnessDb(storedQuiet.samples, storedQuiet.sampleRate)).toBeGreaterThan(-23);
    const raw = await create(h.users.alice, { voices: [{ bytes: quiet, name: 'q.wav' }], texts: [text], enhance_audio_quality: 'false' });
    const storedRaw = parseWav(await import('node:fs/promises').then((fs) => fs.readFile(h.services.stores.models.filePath(raw._id, 'voice-0.wav'))));
    expect(Array.from(storedRaw.samples.subarray(0, 4000))).toEqual(Array.from(parseWav(quiet).samples.subarray(0, 4000)));
  });

  it('derives a male voice from a male speaker and refuses voices without speech', async () => {
    const male = await create(h.users.bob, { voices: [{ bytes: await fixture('rms_00.wav'), name: 'm.wav' }] });
    expect((await h.services.stores.models.get(male._id))!.voice.voice).not.toBe('slt');
    const silence = encodeWav(new Int16Array(16_000 * 4), 16_000);
    const result = await call('POST', '/model', h.users.bob, modelForm({ voices: [{ bytes: silence, name: 's.wav' }], texts: ['x'] }));
    expect422(result, ['body', 'voices']);
    expect(result.body[0].msg).toMatch(/too little speech/);
  });

  it('generates default text and a playable sample when asked', async () => {
    const model = await create(h.users.alice, { generate_sample: 'true', visibility: 'unlist', cover: null });
    expect(model.default_text.length).toBeGreaterThan(10);
    expect(model.samples).toHaveLength(1);
    expect(model.samples[0]).toMatchObject({ text: model.default_text, task_id: expect.any(String) });
    const audio = await fetch(model.samples[0].audio, { headers: authHeaders(h.users.bob) });
    expect(audio.status).toBe(200);
    const wav = parseWav(new Uint8Array(await audio.arrayBuffer()));
    expect(wav.samples.length / wav.sampleRate).toBeGreaterThan(1);
  });

  it('answers 422 in the interface shape for each invalid field, and stores nothing', async () => {
    const before = (await readdir(h.services.stores.files.modelsDir)).length;
    expect422(await call('POST', '/model', h.users.alice, modelForm({ type: 'svc', voices: [{ bytes: voice3s, name: 'a.wav' }] })), ['body', 'type']);
    expect422(await call('POST', '/model', h.users.alice, modelForm({ train_mode: 'full', voices: [{ bytes: voice3s, name: 'a.wav' }] })), ['body', 'train_mode']);
    expect422(await call('POST', '/model', h.users.alice, modelForm({ title: ' ', voices: [{ bytes: voice3s, name: 'a.wav' }] })), ['body', 'title']);
    expect422(await call('POST', '/model', h.users.alice, modelForm({})), ['body', 'voices']);
    expect422(await call('POST', '/model', h.users.alice, modelForm({ cover: null, voices: [{ bytes: voice3s, name: 'a.wav' }] })), ['body', 'cover_image']);
    expect422(await call('POST', '/model', h.users.alice, modelForm({ cover: new Uint8Array([1, 2, 3]), voices: [{ bytes: voice3s, name: 'a.wav' }] })), ['body', 'cover_image']);
    expect422(await call('POST', '/model', h.users.alice, modelForm({ visibility: 'secret', voices: [{ bytes: voice3s, name: 'a.wav' }] })), ['body', 'visibility']);
    expect422(await call('POST', '/model', h.users.alice, modelForm({ texts: ['a', 'b'], voices: [{ bytes: voice3s, name: 'a.wav' }] })), ['body', 'texts']);
    expect422(await call('POST', '/model', h.users.alice, modelForm({ generate_sample: 'maybe', voices: [{ bytes: voice3s, name: 'a.wav' }] })), ['body', 'generate_sample']);
    expect422(await call('POST', '/model', h.users.alice, modelForm({ extra: { colour: 'red' }, voices: [{ bytes: voice3s, name: 'a.wav' }] })), ['body', 'colour']);
    expect422(await call('POST', '/model', h.users.alice, modelForm({ texts: ['x'], voices: [{ bytes: new TextEncoder().encode('not audio at all'), name: 'a.wav' }] })), ['body', 'voices', '0']);
    const bare = new FormData();
    bare.append('title', 'only a title');
    const missing = await call('POST', '/model', h.users.alice, bare);
    expect(missing.body.map((issue: any) => issue.loc[1]).sort()).toEqual(['cover_image', 'train_mode', 'type', 'voices']);
    expect((await readdir(h.services.stores.files.modelsDir)).length).toBe(before);
    expect(await readdir(h.services.stores.files.stagingDir)).toEqual([]);
  });

  it('creates the model without a transcript, and says why, when no recogniser is installed', async () => {
    const noAsr = await startHarness({
      engines: {
        tts: testEngines.tts,
        asr: () => {
          throw new EngineUnavailableError('pocketsphinx', 'pocketsphinx is not installed');
        },
      },
    });
    try {
      const response = await fetch(`${noAsr.url}/model`, { method: 'POST', headers: authHeaders(noAsr.users.alice), body: modelForm({ voices: [{ bytes: voice3s, name: 'a.wav' }] }) });
      const model = (await response.json()) as any;
      expect(response.status).toBe(201);
      expect(model.quality.audios[0]).toMatchObject({ language: 'unknown', quality_reason: expect.stringMatching(/no transcript: speech recognition is unavailable/) });
      expect((await noAsr.services.stores.models.get(model._id))!.samples[0]!.text).toBe('');
    } finally {
      await noAsr.close();
    }
  });

  it('refuses oversized uploads with 413', async () => {
    const big = await startHarness({ uploadLimits: { voiceBytes: 50_000 } });
    try {
      const response = await fetch(`${big.url}/model`, { method: 'POST', headers: authHeaders(big.users.alice), body: modelForm({ voices: [{ bytes: voice3s, name: 'a.wav' }], texts: ['x'] }) });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ status: 413 });
      expect(await readdir(big.services.stores.files.modelsDir)).toEqual([]);
      // The upload was streamed to the staging area, and removed when it went over the limit.
      expect(await readdir(big.services.stores.files.stagingDir)).toEqual([]);
      const fits = await fetch(`${big.url}/model`, {
        method: 'POST',
        headers: authHeaders(big.users.alice),
        body: modelForm({ voices: [{ bytes: voice3s.subarray(0, 40_000), name: 'a.wav' }], texts: ['x'], visibility: 'private' }),
      });
      expect(fits.status).not.toBe(413);
      await fits.arrayBuffer();
      expect(await readdir(big.services.stores.files.stagingDir)).toEqual([]);
    } finally {
      await big.close();
    }
  });

  it('is 401 without a valid key on every model and wallet route', async () => {
    const bad = { id: 'x', key: 'sk_wrong' };
    for (const user of [undefined, bad]) {
      for (const [method, path] of [['POST', '/model'], ['GET', '/model'], ['GET', '/model/abc'], ['PATCH', '/model/abc'], ['DELETE', '/model/abc'], ['GET', '/wallet/self/package'], ['GET', '/wallet/self/api-credit']] as const) {
        const result = await call(method, path, user, method === 'PATCH' || method === 'POST' ? { title: 'x' } : undefined);
        expect(result.status, `${method} ${path}`).toBe(401);
        expect(result.body).toEqual({ status: 401, message: expect.stringMatching(/Invalid Token/) });
      }
    }
  });
});
