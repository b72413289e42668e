/**
 * The official `@deepgram/sdk` against two `shoal serve` processes on one PostgreSQL: live `/v1/listen` sockets on
 * both instances bill the audio seconds each received on the shared wallet, and sockets racing on both instances
 * for more audio than the balance covers never take it below zero.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKeySecret, openPgStores, type PgStores } from '../src/service/store/index.js';
import { billed, clip, openLive, transcriptOf } from './deepgram-sdk-client.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';
import { startServeProcess, type ServeProcess } from './serve-process.js';

let cluster: PgCluster;
let stores: PgStores;
let instances: ServeProcess[] = [];

beforeAll(async () => {
  cluster = await startPgCluster();
  const database = await cluster.createDatabase();
  instances = await Promise.all([0, 1].map(() => startServeProcess({ args: ['--database', database] })));
  stores = await openPgStores(database, { serve: false });
}, 120_000);
afterAll(async () => {
  await stores?.close();
  await Promise.all(instances.map((instance) => instance.stop()));
  await cluster?.close();
});

async function userWith(id: string, creditMicros: number): Promise<string> {
  await stores.accounts.createUser({ id, creditMicros });
  await stores.accounts.createKey({ userId: id, name: 'k', secretHash: hashKeySecret(`sk_${id}`) });
  return `sk_${id}`;
}

const balance = async (id: string) => (await stores.accounts.getUser(id))!.creditMicros;

async function holdsReturned(): Promise<void> {
  await expect.poll(async () => (await stores.db.query<{ n: number }>('SELECT COUNT(*)::INTEGER AS n FROM holds')).rows[0]!.n, { timeout: 10_000 }).toBe(0);
}

/** One live socket on `baseUrl`: `audio` sent, then CloseStream; its messages and close. */
async function listenOnce(baseUrl: string, key: string, audio: Buffer) {
  const live = await openLive(baseUrl, key, { endpointing: 'false' });
  await live.send(audio, 5);
  live.socket.sendCloseStream({ type: 'CloseStream' });
  return { closed: await live.closed, transcript: transcriptOf(live.messages) };
}

describe('live recognition on two instances on one PostgreSQL', () => {
  it('a socket on each instance is billed the audio it received, once, on the shared wallet', async () => {
    const credit = 10_000_000;
    const key = await userWith('both', credit);
    const speech = clip('dev_12.wav');
    const digits = clip('dev_08.wav');
    const [a, b] = await Promise.all([listenOnce(instances[0]!.url, key, speech), listenOnce(instances[1]!.url, key, digits)]);
    expect(a.closed.code).toBe(1000);
    expect(b.closed.code).toBe(1000);
    expect(a.transcript).toMatch(/testing routine/);
    expect(b.transcript).toMatch(/^(four|for) one nine two$/);
    await holdsReturned();
    expect(await balance('both')).toBe(credit - billed(speech.length) - billed(digits.length));
  }, 60_000);

  it('sockets racing on both instances for more audio than the balance covers stop at it, never below zero', async () => {
    const speech = clip('dev_12.wav');
    // Enough for one clip and a half: the second socket's audio runs out of credit.
    const credit = Math.floor(billed(speech.length) * 1.5);
    const key = await userWith('racer', credit);
    const closes = await Promise.all(instances.map((instance) => listenOnce(instance.url, key, speech).then((result) => result.closed)));
    const refused = closes.filter((close) => close.code !== 1000);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const close of refused) expect(close).toMatchObject({ code: 1008, reason: expect.stringMatching(/^INSUFFICIENT_CREDIT/) });
    await holdsReturned();
    const left = await balance('racer');
    expect(left).toBeGreaterThanOrEqual(0);
    expect(left).toBeLessThan(credit - billed(speech.length) + 1);
  }, 60_000);
});
