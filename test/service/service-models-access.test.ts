import { encode } from '@msgpack/msgpack';
import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, fixture, modelForm, png, startHarness, type Harness, type TestUser } from '../support/service-store-harness.js';

let h: Harness;
let voice: Uint8Array;
type Vis = 'public' | 'unlist' | 'private';
const visibilities: Vis[] = ['public', 'unlist', 'private'];

async function call(method: string, path: string, user: TestUser | undefined, body?: FormData | object) {
  const headers = authHeaders(user);
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(`${h.url}${path}`, { method, headers, body: payload });
  const type = response.headers.get('content-type') ?? '';
  return { status: response.status, body: type.includes('json') ? ((await response.json()) as any) : await response.arrayBuffer() };
}

async function create(user: TestUser, visibility: Vis, title = `${visibility} model`): Promise<string> {
  const result = await call('POST', '/model', user, modelForm({ title, visibility, voices: [{ bytes: voice, name: 'v.wav' }], texts: ['hello there'] }));
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body._id;
}

beforeAll(async () => {
  h = await startHarness();
  voice = await fixture('rms_00.wav');
});
afterAll(async () => h?.close());

describe('visibility matrix', () => {
  it('answers owner, other user and anonymous per visibility on every route', async () => {
    const owner = h.users.alice;
    const other = h.users.bob;
    const ids = Object.fromEntries(await Promise.all(visibilities.map(async (v) => [v, await create(owner, v)]))) as Record<Vis, string>;
    const expected: Record<Vis, { get: number[]; change: number[]; listed: boolean[]; usable: boolean[] }> = {
      // [owner, other, anonymous]
      public: { get: [200, 200, 401], change: [200, 403, 401], listed: [true, true], usable: [true, true] },
      unlist: { get: [200, 200, 401], change: [200, 403, 401], listed: [false, false], usable: [true, true] },
      private: { get: [200, 404, 401], change: [200, 404, 401], listed: [false, false], usable: [true, false] },
    };
    for (const v of visibilities) {
      const id = ids[v];
      const viewers = [owner, other, undefined];
      for (const [i, viewer] of viewers.entries()) {
        const who = `${v} as ${['owner', 'other', 'anonymous'][i]}`;
        expect((await call('GET', `/model/${id}`, viewer)).status, `GET ${who}`).toBe(expected[v].get[i]);
        expect((await call('GET', `/model/${id}/cover`, viewer)).status, `cover ${who}`).toBe(expected[v].get[i]);
        if (i > 0) {
          const patch = await call('PATCH', `/model/${id}`, viewer, { title: 'stolen' });
          expect(patch.status, `PATCH ${who}`).toBe(expected[v].change[i]);
          expect((await call('DELETE', `/model/${id}`, viewer)).status, `DELETE ${who}`).toBe(expected[v].change[i]);
          if (patch.status === 404) expect(JSON.stringify(patch.body)).not.toContain('private model');
        }
      }
      for (const [i, viewer] of [owner, other].entries()) {
        const listed = (await call('GET', '/model?page_size=100', viewer)).body.items.some((m: any) => m._id === id);
        expect(listed, `listed ${v} for ${i ? 'other' : 'owner'}`).toBe(expected[v].listed[i]);
        const voice = await h.services.voices.resolve(id, { userId: viewer.id, keyId: 'k' });
        expect(voice !== null, `reference_id ${v} for ${i ? 'other' : 'owner'}`).toBe(expected[v].usable[i]);
      }
      expect((await h.services.stores.models.get(id))!.title).toBe(`${v} model`);
    }
    const ownPrivate = await call('GET', `/model/${ids.private}`, owner);
    expect(ownPrivate.body.visibility).toBe('private');
    const notFound = await call('GET', `/model/${ids.private}`, other);
    expect(notFound.body).toEqual({ status: 404, message: expect.stringContaining(ids.private) });
    expect((await call('GET', '/model/no-such-model', owner)).status).toBe(404);
  });
});

describe('PATCH /model/{id}', () => {
  it('updates title, description, tags, visibility and cover; the old cover file goes', async () => {
    const id = await create(h.users.alice, 'public', 'before');
    const oldFiles = await readdir(h.services.stores.files.modelDir(id));
    const form = new FormData();
    form.append('title', 'after');
    form.append('description', 'new words');
    form.append('tags', 'one,two');
    form.append('visibility', 'unlist');
    form.append('cover_image', new Blob([new Uint8Array(png)]), 'c.png');
    const result = await call('PATCH', `/model/${id}`, h.users.alice, form);
    expect(result).toMatchObject({ status: 200, body: { status: 'ok' } });
    const model = (await call('GET', `/model/${id}`, h.users.alice)).body;
    expect(model).toMatchObject({ title: 'after', description: 'new words', tags: ['one', 'two'], visibility: 'unlist' });
    expect(Date.parse(model.updated_at)).toBeGreaterThan(Date.parse(model.created_at));
    const newFiles = await readdir(h.services.stores.files.modelDir(id));
    expect(newFiles.filter((f) => f.startsWith('cover'))).toHaveLength(1);
    expect(newFiles.find((f) => f.startsWith('cover'))).not.toBe(oldFiles.find((f) => f.startsWith('cover')));
    const json = await call('PATCH', `/model/${id}`, h.users.alice, { tags: ['json'], description: '' });
    expect(json.status).toBe(200);
    expect((await call('GET', `/model/${id}`, h.users.alice)).body).toMatchObject({ tags: ['json'], description: '', title: 'after' });
    const packed = await fetch(`${h.url}/model/${id}`, {
      method: 'PATCH',
      headers: { ...authHeaders(h.users.alice), 'content-type': 'application/msgpack' },
      body: encode({ title: 'packed', cover_image: png }),
    });
    expect(packed.status).toBe(200);
    expect((await call('GET', `/model/${id}`, h.users.alice)).body.title).toBe('packed');
    expect((await call('PATCH', `/model/${id}`, h.users.alice, { tags: [] })).status).toBe(200);
    expect((await call('GET', `/model/${id}`, h.users.alice)).body.tags).toEqual([]);
    expect((await call('GET', `/model?tag=json`, h.users.alice)).body.total).toBe(0);
  });

  it('answers 422 for bad values and for going public without a cover', async () => {
    const id = await call('POST', '/model', h.users.alice, modelForm({ visibility: 'private', cover: null, voices: [{ bytes: voice, name: 'v.wav' }], texts: ['hi'] }));
    expect(id.status).toBe(201);
    const path = `/model/${id.body._id}`;
    for (const [body, field] of [[{ visibility: 'public' }, 'cover_image'], [{ visibility: 'everyone' }, 'visibility'], [{ title: '' }, 'title'], [{ owner: 'bob' }, 'owner']] as const) {
      const result = await call('PATCH', path, h.users.alice, body);
      expect(result.status, JSON.stringify(body)).toBe(422);
      expect(result.body.map((issue: any) => issue.loc[1])).toContain(field);
    }
    expect((await call('GET', path, h.users.alice)).body.visibility).toBe('private');
  });
});

describe('DELETE /model/{id}', () => {
  it('removes the row and the files, then 404s', async () => {
    const id = await create(h.users.alice, 'public');
    expect((await readdir(h.services.stores.files.modelDir(id))).length).toBeGreaterThan(1);
    expect(await call('DELETE', `/model/${id}`, h.users.alice)).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect((await call('GET', `/model/${id}`, h.users.alice)).status).toBe(404);
    await expect(readdir(h.services.stores.files.modelDir(id))).rejects.toThrow(/ENOENT/);
    expect((await call('DELETE', `/model/${id}`, h.users.alice)).status).toBe(404);
    expect(await h.services.voices.resolve(id, { userId: 'alice', keyId: 'k' })).toBeNull();
  });
});
