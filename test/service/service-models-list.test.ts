import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, fixture, modelForm, startHarness, type Harness, type ModelFormInput, type TestUser } from '../support/service-store-harness.js';

let h: Harness;
let voice: Uint8Array;
const ids: Record<string, string> = {};

async function get(path: string, user: TestUser | undefined = h.users.bob) {
  const response = await fetch(`${h.url}${path}`, { headers: authHeaders(user) });
  return { status: response.status, body: (await response.json()) as any };
}

async function create(user: TestUser, input: Partial<ModelFormInput>): Promise<string> {
  const response = await fetch(`${h.url}/model`, {
    method: 'POST',
    headers: authHeaders(user),
    body: modelForm({ voices: [{ bytes: voice, name: 'v.wav' }], texts: ['hello this is my voice'], ...input }),
  });
  const body = (await response.json()) as any;
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body._id;
}

const titles = (body: any) => body.items.map((m: any) => m.title);

beforeAll(async () => {
  h = await startHarness();
  voice = await fixture('slt_00.wav');
  for (let i = 1; i <= 7; i++) ids[`c${i}`] = await create(h.users.carol, { title: `Carol ${i}`, tags: i % 2 ? ['odd', 'carol'] : ['even', 'carol'] });
  ids.aPub = await create(h.users.alice, { title: 'Alice public', tags: ['alice'] });
  ids.aUnl = await create(h.users.alice, { title: 'Alice unlisted', visibility: 'unlist', tags: ['alice'] });
  ids.aPrv = await create(h.users.alice, { title: 'Alice private', visibility: 'private', tags: ['alice'] });
  ids.zh = await create(h.users.alice, { title: '温柔的声音', texts: ['你好，这是我的声音'], tags: ['alice'] });
  ids.ja = await create(h.users.alice, { title: 'Japanese voice', texts: ['こんにちは、私の声です'], visibility: 'unlist' });
});
afterAll(async () => h?.close());

describe('GET /model', () => {
  it('pages with correct total and has_more, including past the end', async () => {
    const filter = '&author_id=carol&sort_by=created_at';
    const pages = await Promise.all([1, 2, 3, 4].map((n) => get(`/model?page_size=3&page_number=${n}${filter}`)));
    expect(pages.map((p) => p.body.total)).toEqual([7, 7, 7, 7]);
    expect(pages.map((p) => p.body.items.length)).toEqual([3, 3, 1, 0]);
    expect(pages.map((p) => p.body.has_more)).toEqual([true, true, false, false]);
    expect(pages.flatMap((p) => titles(p.body))).toEqual([7, 6, 5, 4, 3, 2, 1].map((i) => `Carol ${i}`));
    const exact = await get(`/model?page_size=7${filter}`);
    expect(exact.body).toMatchObject({ total: 7, has_more: false });
    const defaults = await get('/model');
    expect(defaults.body.items).toHaveLength(9);
    expect(defaults.body).toMatchObject({ total: 9, has_more: false });
    expect((await get('/model?page_size=8')).body).toMatchObject({ total: 9, has_more: true });
    expect((await get('/model?page_size=1&page_number=9')).body).toMatchObject({ total: 9, has_more: false });
  });

  it('answers 422 on bad paging and sort values', async () => {
    for (const query of ['page_size=0', 'page_number=0', 'page_size=abc', 'page_size=101', 'sort_by=likes', 'self=maybe', 'colour=red']) {
      const result = await get(`/model?${query}`);
      expect(result.status, query).toBe(422);
      expect(result.body[0]).toMatchObject({ loc: ['query', query.split('=')[0]], in: 'query' });
    }
  });

  it('filters by title, tags (single, repeated, indexed), language and title language', async () => {
    expect(titles((await get('/model?title=alice%20PUB')).body)).toEqual(['Alice public']);
    expect((await get('/model?tag=odd')).body.total).toBe(4);
    expect((await get('/model?tag=odd&tag=carol')).body.total).toBe(4);
    expect((await get('/model?tag=odd&tag=even')).body.total).toBe(0);
    expect((await get('/model?tag%5B0%5D=even&tag%5B1%5D=carol')).body.total).toBe(3);
    expect(titles((await get('/model?language=zh')).body)).toEqual(['温柔的声音']);
    expect((await get('/model?language=zh&language=en')).body.total).toBe(9);
    expect(titles((await get('/model?title_language=zh')).body)).toEqual(['温柔的声音']);
    expect((await get('/model?title=nothing-like-this')).body).toEqual({ total: 0, items: [], has_more: false });
  });

  it('lists only public models to others, and all own models with self or author_id', async () => {
    const mine = await get('/model?self=true&page_size=100', h.users.alice);
    expect(mine.body.total).toBe(5);
    expect(titles(mine.body)).toContain('Alice private');
    expect((await get('/model?self=true', h.users.bob)).body.total).toBe(0);
    expect(titles((await get('/model?author_id=alice')).body).sort()).toEqual(['Alice public', '温柔的声音']);
    expect((await get('/model?author_id=alice', h.users.alice)).body.total).toBe(5);
    expect((await get('/model?self=true&author_id=carol', h.users.alice)).body.total).toBe(5);
    const general = await get('/model?page_size=100', h.users.alice);
    expect(titles(general.body)).not.toContain('Alice unlisted');
    expect(titles(general.body)).not.toContain('Alice private');
  });

  it('sorts by task_count and score after uses are recorded', async () => {
    for (let i = 0; i < 3; i++) await h.services.voices.recordUse!(ids.c2!);
    await h.services.voices.recordUse!(ids.c5!);
    const byTasks = await get('/model?sort_by=task_count&page_size=2');
    expect(titles(byTasks.body)).toEqual(['Carol 2', 'Carol 5']);
    expect(byTasks.body.items.map((m: any) => m.task_count)).toEqual([3, 1]);
    expect(titles((await get('/model?sort_by=score&page_size=1')).body)).toEqual(['Carol 2']);
    expect(titles((await get('/model?sort_by=created_at&page_size=1')).body)).toEqual(['温柔的声音']);
  });

  it('keeps models, files and counts across a restart', async () => {
    const before = (await get(`/model/${ids.c2}`)).body;
    await h.close();
    h = await startHarness({ dataDir: h.dataDir });
    const after = await get(`/model/${ids.c2}`);
    expect(after.body).toEqual({ ...before, cover_image: after.body.cover_image });
    expect(after.body.task_count).toBe(3);
    const cover = await fetch(after.body.cover_image, { headers: authHeaders(h.users.bob) });
    expect(cover.status).toBe(200);
    expect((await get('/model?author_id=carol')).body.total).toBe(7);
  });
});
