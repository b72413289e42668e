import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { formatMicros, priceOf } from '../../src/service/store/index.js';
import { connectLive } from '../support/service-live-client.js';
import { authHeaders, fixture, modelForm, startHarness, type Harness, type TestUser } from '../support/service-store-harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function tts(harness: Harness, user: TestUser, body: object) {
  return fetch(`${harness.url}/v1/tts`, {
    method: 'POST',
    headers: { ...authHeaders(user), 'content-type': 'application/json', model: 's1' },
    body: JSON.stringify({ format: 'pcm', sample_rate: 16000, ...body }),
  });
}

/** Billing runs when the response has finished; waits until the ledger stops changing. */
async function settledDebits(harness: Harness, userId: string): Promise<number> {
  let last = -1;
  for (let i = 0; i < 100; i++) {
    const now = await harness.services.stores.accounts.debitedMicros(userId);
    if (now === last) return now;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return last;
}

const ledgerRows = (harness: Harness, userId: string) =>
  (harness.services.stores.db.prepare('SELECT COUNT(*) AS n FROM ledger WHERE user_id = ? AND amount_micros <= 0').get(userId) as { n: number }).n;

function upgrade(harness: Harness, user: TestUser): Promise<number | 'open'> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${harness.url.replace('http', 'ws')}/v1/tts/live`, { headers: authHeaders(user) });
    socket.once('open', () => {
      resolve('open');
    });
    socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.once('error', reject);
    sockets.push(socket);
  });
}
const sockets: WebSocket[] = [];
afterEach(() => sockets.splice(0).forEach((socket) => socket.terminate()));

describe('billing', () => {
  it('debits exactly the successful work of 50 concurrent requests, and nothing for failed ones', async () => {
    // Room for all 50 responses at once: this is about billing, not the overload cap (test/service-overload).
    h = await startHarness({ rateLimit: { requestsPerSecond: 1000, burst: 1000 }, limits: { ttsStreams: 64 } });
    const harness = h;
    const before = (await harness.services.stores.accounts.getUser('bob'))!.creditMicros;
    const jobs = Array.from({ length: 50 }, (_, i) => ({
      text: `${'word '.repeat(1 + (i % 7))}number ${i}.`,
      fails: i % 5 === 4,
    }));
    const statuses = await Promise.all(
      jobs.map(async (job) => {
        const response = await tts(harness, harness.users.bob, { text: job.text, ...(job.fails ? { reference_id: 'no-such-voice' } : {}) });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    // A full engine queue may refuse a few at once with 503 (bounded pools): refused work is billed nothing.
    statuses.forEach((status, i) => expect(jobs[i]!.fails ? [400] : [200, 503]).toContain(status));
    const served = jobs.filter((_, i) => statuses[i] === 200);
    expect(served.length).toBeGreaterThanOrEqual(30);
    const expected = served.reduce((sum, job) => sum + priceOf({ kind: 'tts', characters: job.text.trim().length }), 0);
    expect(await settledDebits(harness, 'bob')).toBe(expected);
    expect(ledgerRows(harness, 'bob')).toBe(served.length);
    expect((await harness.services.stores.accounts.getUser('bob'))!.creditMicros).toBe(before - expected);
    const credit = await fetch(`${harness.url}/wallet/self/api-credit`, { headers: authHeaders(harness.users.bob) });
    expect(((await credit.json()) as { credit: string }).credit).toBe(formatMicros(before - expected));
  }, 90_000);

  it('resolves models as reference_id by visibility and counts TTS uses in task_count', async () => {
    h = await startHarness();
    const form = modelForm({ visibility: 'private', cover: null, voices: [{ bytes: await fixture('slt_00.wav'), name: 'v.wav' }], texts: ['hello'] });
    const created = await fetch(`${h.url}/model`, { method: 'POST', headers: authHeaders(h.users.alice), body: form });
    const id = ((await created.json()) as { _id: string })._id;
    const stranger = await tts(h, h.users.bob, { text: 'Hello there.', reference_id: id });
    expect(stranger.status).toBe(400);
    expect(JSON.stringify(await stranger.json())).not.toContain('private');
    const owner = await tts(h, h.users.alice, { text: 'Hello there.', reference_id: id });
    expect(owner.status).toBe(200);
    await owner.arrayBuffer();
    await settledDebits(h, 'alice');
    expect((await h.services.stores.models.get(id))!.taskCount).toBe(1);
    expect(await settledDebits(h, 'bob')).toBe(0);
  });

  it('answers 402 before any work when the credit is used up, on HTTP and on the WebSocket upgrade', async () => {
    h = await startHarness();
    const accounts = h.services.stores.accounts;
    await accounts.createUser({ id: 'poor', creditMicros: 1 + priceOf({ kind: 'tts', characters: 3 }) });
    const { hashKeySecret } = await import('../../src/service/store/index.js');
    await accounts.createKey({ userId: 'poor', name: 'k', secretHash: hashKeySecret('sk_poor') });
    const poor = { id: 'poor', key: 'sk_poor' };
    const first = await tts(h, poor, { text: 'Hi.' });
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    await settledDebits(h, 'poor');
    expect((await accounts.getUser('poor'))!.creditMicros).toBe(1);
    const refused = await tts(h, poor, { text: 'Hi again.' });
    expect(refused.status).toBe(402);
    expect(await refused.json()).toEqual({
      status: 402,
      message: 'not enough credit: this needs 0.000135 credits and the balance is 0.000001; add credit with `shoal credit add <user> <amount>` or send less',
    });
    expect(ledgerRows(h, 'poor')).toBe(1);
    await accounts.createUser({ id: 'broke', creditMicros: 0 });
    await accounts.createKey({ userId: 'broke', name: 'k', secretHash: hashKeySecret('sk_broke') });
    expect(await upgrade(h, { id: 'broke', key: 'sk_broke' })).toBe(402);
    const wallet = await fetch(`${h.url}/wallet/self/api-credit`, { headers: authHeaders(poor) });
    expect(wallet.status).toBe(200);
    expect(await upgrade(h, { id: 'x', key: 'sk_wrong' })).toBe(401);
  });

  it('ends an open live session within a second of its key being revoked', async () => {
    h = await startHarness();
    const { hashKeySecret } = await import('../../src/service/store/index.js');
    const key = await h.services.stores.accounts.createKey({ userId: 'alice', name: 'laptop', secretHash: hashKeySecret('sk_laptop') });
    const client = await connectLive(`${h.url.replace('http', 'ws')}/v1/tts/live`, { authorization: 'Bearer sk_laptop' });
    client.send({ event: 'start', request: { text: '', format: 'pcm' } });
    client.send({ event: 'text', text: 'Hello there.' });
    client.send({ event: 'flush' });
    await client.waitFor((event) => event.event === 'audio');
    const revokedAt = performance.now();
    expect(await h.services.stores.accounts.revokeKey(key.id)).toBe(true);
    const error = await client.waitFor((event) => event.event === 'error');
    expect(error.error).toMatchObject({ status: 401, message: expect.stringMatching(/revoked or has expired/) });
    expect((await client.closed).code).toBe(1008);
    expect(performance.now() - revokedAt).toBeLessThan(1000);
  });

  it('answers 401 for revoked and expired keys on HTTP and on the WebSocket upgrade', async () => {
    // Key expiry reads the gate's clock: moved by hand, not slept through.
    let nowMs = Date.parse('2030-06-01T12:00:00.000Z');
    h = await startHarness({ now: () => new Date(nowMs) });
    const accounts = h.services.stores.accounts;
    const { hashKeySecret } = await import('../../src/service/store/index.js');
    const revoked = await accounts.createKey({ userId: 'alice', name: 'old laptop', secretHash: hashKeySecret('sk_revoked') });
    await accounts.createKey({ userId: 'alice', name: 'short-lived', secretHash: hashKeySecret('sk_expiring'), expiresAt: new Date(nowMs + 1500).toISOString() });
    const expiring = { id: 'alice', key: 'sk_expiring' };
    nowMs += 1499;
    expect((await fetch(`${h.url}/wallet/self/package`, { headers: authHeaders(expiring) })).status).toBe(200);
    expect(await accounts.revokeKey(revoked.id)).toBe(true);
    nowMs += 1;
    for (const user of [{ id: 'alice', key: 'sk_revoked' }, expiring]) {
      const response = await fetch(`${h.url}/model`, { headers: authHeaders(user) });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ status: 401, message: expect.any(String) });
      expect((await tts(h, user, { text: 'Hi.' })).status).toBe(401);
      expect(await upgrade(h, user)).toBe(401);
    }
  });

  it('answers 429 with Retry-After over the per-key rate and live-session limit', async () => {
    h = await startHarness({ rateLimit: { requestsPerSecond: 1, burst: 3, liveSessions: 1 } });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${h.url}/model`, { headers: authHeaders(h.users.alice) });
      statuses.push(response.status);
      if (response.status === 429) {
        retryAfter = response.headers.get('retry-after');
        expect(await response.json()).toMatchObject({ status: 429 });
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${h.url}/model`, { headers: authHeaders(h.users.bob) })).status).toBe(200);
    expect(await upgrade(h, h.users.bob)).toBe('open');
    expect(await upgrade(h, h.users.bob)).toBe(429);
  });
});
