// The wallet routes as a client sees them (status, body, what to fix), on a bare Fastify app: the signed-in
// user comes from a header the test sets, the users from a map the test owns (no engines, ~0.1 s).
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendError } from '../../src/service/http/errors.js';
import { walletRoutes } from '../../src/service/routes/wallet.js';
import type { UserRecord } from '../../src/service/store/types.js';

const created = '2026-01-02T03:04:05.000Z';
const updated = '2026-02-03T04:05:06.000Z';
const user = (id: string, creditMicros: number, freeCredit: boolean): UserRecord => ({
  id, nickname: id, avatar: '', creditMicros, grantedMicros: 12_500_000, freeCredit, createdAt: created, updatedAt: updated,
});
const users = new Map<string, UserRecord>([
  ['paid', user('paid', 2_500_000, false)],
  ['trial', user('trial', 7, true)],
  ['spent', user('spent', 0, true)],
]);
const before = structuredClone([...users]);

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    const id = request.headers['x-user'];
    if (typeof id === 'string') request.principal = { userId: id, keyId: `key-${id}` };
  });
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  await app.register(walletRoutes, { getUser: async (id) => users.get(id) ?? null });
});
afterAll(() => app.close());

async function get(url: string, who: string) {
  const response = await app.inject({ method: 'GET', url, headers: { 'x-user': who } });
  return { status: response.statusCode, body: response.json() as any };
}

describe('GET /wallet/{user_id}/package', () => {
  it('describes the self-hosted package: totals in credits, open-ended dates, no subscription', async () => {
    const { status, body } = await get('/wallet/self/package', 'paid');
    expect(status).toBe(200);
    const openEnded = '9999-12-31T23:59:59.999Z';
    expect(body).toEqual({
      user_id: 'paid', type: 'self-hosted', total: 12.5, balance: 2.5, created_at: created, updated_at: updated,
      finished_at: openEnded, payments_subscription_id: '', payments_price_id: '', billing_period: 'none',
      current_period_end: openEnded, cancel_at_period_end: false, cancel_at: openEnded, scheduled_change: {},
      last_synced_at: updated, subscription_currency: 'usd', extra_balance: 0, has_used_trial: false,
    });
  });

  it("refuses another user's wallet with 403 and says what to ask for instead", async () => {
    const { status, body } = await get('/wallet/trial/package', 'paid');
    expect(status).toBe(403);
    expect(body).toEqual({ status: 403, message: 'you can only read your own wallet; use "self" or your own user id' });
  });

  it('answers 401 when the user behind the key no longer exists', async () => {
    for (const path of ['/wallet/self/package', '/wallet/self/api-credit']) {
      const { status, body } = await get(path, 'gone');
      expect(status, path).toBe(401);
      expect(body).toEqual({ status: 401, message: 'the user of this API key no longer exists' });
    }
  });
});

describe('GET /wallet/{user_id}/api-credit', () => {
  const freeCredit = async (query: string, who = 'trial') => {
    const { status, body } = await get(`/wallet/self/api-credit${query}`, who);
    expect(status, query).toBe(200);
    return body.has_free_credit;
  };

  it('returns the exact credit and the record dates', async () => {
    const { status, body } = await get('/wallet/paid/api-credit', 'paid');
    expect(status).toBe(200);
    expect(body).toEqual({
      _id: 'credit-paid', user_id: 'paid', credit: '2.50', created_at: created, updated_at: updated,
      has_phone_sha256: false, has_free_credit: null,
    });
  });

  it('tells free credit only when asked, for every spelling of true and false', async () => {
    for (const yes of ['?check_free_credit=true', '?check_free_credit=TRUE', '?check_free_credit=1']) {
      expect(await freeCredit(yes)).toBe(true);
    }
    for (const no of ['', '?check_free_credit=false', '?check_free_credit=0', '?check_free_credit=']) {
      expect(await freeCredit(no)).toBeNull();
    }
    expect(await freeCredit('?check_free_credit=true', 'spent')).toBe(false);
    expect(await freeCredit('?check_free_credit=true', 'paid')).toBe(false);
  });

  it('refuses a check_free_credit that is not a boolean with 422 naming the parameter', async () => {
    const { status, body } = await get('/wallet/self/api-credit?check_free_credit=perhaps', 'trial');
    expect(status).toBe(422);
    expect(body).toEqual([
      { loc: ['query', 'check_free_credit'], type: 'bool_parsing', msg: 'check_free_credit must be true or false', in: 'query' },
    ]);
  });

  it('refuses unknown query parameters with 422, one issue each, together with a bad boolean', async () => {
    const { status, body } = await get('/wallet/self/api-credit?team=x&check_free_credit=maybe&limit=3', 'trial');
    expect(status).toBe(422);
    expect(body).toEqual([
      { loc: ['query', 'team'], type: 'extra_forbidden', msg: 'unknown query parameter team', in: 'query' },
      { loc: ['query', 'limit'], type: 'extra_forbidden', msg: 'unknown query parameter limit', in: 'query' },
      { loc: ['query', 'check_free_credit'], type: 'bool_parsing', msg: 'check_free_credit must be true or false', in: 'query' },
    ]);
  });

  it('accepts only the personal team and names the unknown one in its 404', async () => {
    expect((await get('/wallet/self/api-credit?team_id=paid&check_free_credit=1', 'paid')).body.credit).toBe('2.50');
    const { status, body } = await get('/wallet/self/api-credit?team_id=acme', 'paid');
    expect(status).toBe(404);
    expect(body).toEqual({ status: 404, message: 'no team acme that you belong to' });
  });

  it('changes no wallet, whatever was asked', () => {
    expect([...users]).toEqual(before);
  });
});
