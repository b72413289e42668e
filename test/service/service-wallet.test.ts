import { FishAudioClient, FishAudioError } from 'fish-audio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, fixture, png, startHarness, type Harness, type TestUser } from '../support/service-store-harness.js';

let h: Harness;

async function get(path: string, user: TestUser | undefined) {
  const response = await fetch(`${h.url}${path}`, { headers: authHeaders(user) });
  return { status: response.status, body: (await response.json()) as any };
}

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const isDate = (value: unknown) => typeof value === 'string' && !Number.isNaN(Date.parse(value));

describe('GET /wallet/{user_id}/package', () => {
  it('returns every package field with its type for self and for the own id', async () => {
    for (const who of ['self', 'alice']) {
      const { status, body } = await get(`/wallet/${who}/package`, h.users.alice);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        user_id: 'alice', type: 'self-hosted', total: 10, balance: 10, payments_subscription_id: '', payments_price_id: '',
        billing_period: expect.any(String), cancel_at_period_end: false, scheduled_change: {}, subscription_currency: expect.any(String),
        extra_balance: 0, has_used_trial: false,
      });
      for (const field of ['created_at', 'updated_at', 'finished_at', 'current_period_end', 'cancel_at', 'last_synced_at']) {
        expect(isDate(body[field]), field).toBe(true);
      }
    }
  });

  it('never shows another user their data: 403 for any other id', async () => {
    for (const path of ['/wallet/bob/package', '/wallet/bob/api-credit', '/wallet/nobody/package']) {
      const { status, body } = await get(path, h.users.alice);
      expect(status, path).toBe(403);
      expect(body).toEqual({ status: 403, message: expect.any(String) });
      expect(JSON.stringify(body)).not.toMatch(/"credit"|balance/);
    }
  });
});

describe('GET /wallet/{user_id}/api-credit', () => {
  it('returns the credit as an exact decimal string, with free credit only when asked', async () => {
    await h.services.stores.accounts.debit('bob', 1_234_567, 'wallet-test', 'test debit');
    const plain = await get('/wallet/self/api-credit', h.users.bob);
    expect(plain.body).toEqual({
      _id: expect.any(String), user_id: 'bob', credit: '8.765433', created_at: expect.any(String), updated_at: expect.any(String),
      has_phone_sha256: false, has_free_credit: null,
    });
    expect(isDate(plain.body.updated_at)).toBe(true);
    expect((await get('/wallet/bob/api-credit?check_free_credit=true', h.users.bob)).body.has_free_credit).toBe(false);
    await h.services.stores.accounts.createUser({ id: 'trial', creditMicros: 5, freeCredit: true });
    const devKey = await (await import('../../src/service/store/index.js')).ensureDevKey(h.services.stores.accounts, 'sk_dev_wallet', { userId: 'trial' });
    expect(devKey.userId).toBe('trial');
    const trial = { id: 'trial', key: 'sk_dev_wallet' };
    expect((await get('/wallet/self/api-credit?check_free_credit=true', trial)).body).toMatchObject({ has_free_credit: true, credit: '0.000005' });
    expect((await get('/wallet/self/api-credit?team_id=bob', h.users.bob)).status).toBe(200);
    expect((await get('/wallet/self/api-credit?team_id=other-team', h.users.bob)).status).toBe(404);
    const bad = await get('/wallet/self/api-credit?check_free_credit=perhaps', h.users.bob);
    expect(bad.status).toBe(422);
    expect(bad.body[0]).toMatchObject({ loc: ['query', 'check_free_credit'], in: 'query' });
  });
});

describe('official fish-audio SDK', () => {
  it('creates, searches, reads, updates and deletes voices and reads the wallet', async () => {
    const client = new FishAudioClient({ apiKey: h.users.carol.key, baseUrl: h.url });
    const audio = await fixture('slt_00.wav');
    const created = await client.voices.ivc.create({
      title: 'SDK voice',
      voices: [new File([new Uint8Array(audio)], 'sample.wav', { type: 'audio/wav' })],
      cover_image: new File([new Uint8Array(png)], 'cover.png', { type: 'image/png' }),
      texts: ['hello i would like to book a table for two people tonight'],
      tags: ['sdk', 'test'],
      visibility: 'public',
      enhance_audio_quality: false,
    });
    expect(created).toMatchObject({ title: 'SDK voice', state: 'trained', tags: ['sdk', 'test'], train_mode: 'fast' });
    const found = await client.voices.search({ self: true, tag: ['sdk', 'test'], page_size: 5 });
    expect(found.total).toBe(1);
    expect(found.items[0]!._id).toBe(created._id);
    expect((await client.voices.get(created._id)).title).toBe('SDK voice');
    expect(await client.voices.update(created._id, { title: 'Renamed', tags: ['x', 'y'] })).toEqual({ status: 'ok' });
    expect((await client.voices.get(created._id)).tags).toEqual(['x', 'y']);
    const credit = await client.user.get_api_credit();
    expect(credit).toMatchObject({ user_id: 'carol', credit: '10.00' });
    const pkg = await client.user.get_package();
    expect(pkg).toMatchObject({ user_id: 'carol', balance: 10 });
    expect(await client.voices.delete(created._id)).toEqual({ status: 'ok' });
    const error = await client.voices.get(created._id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FishAudioError);
    expect((error as FishAudioError).statusCode).toBe(404);
    const stranger = new FishAudioClient({ apiKey: 'sk_not_a_key', baseUrl: h.url });
    expect(((await stranger.user.get_api_credit().catch((e: unknown) => e)) as FishAudioError).statusCode).toBe(401);
  });
});
