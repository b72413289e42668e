/**
 * The official `openai` client against two `shoal serve` processes on one PostgreSQL: both OpenAI routes work
 * and bill on the shared wallet, and requests racing across both instances never take a balance below zero.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditsToMicros, hashKeySecret, openPgStores, priceOf, type PgStores } from '../../src/service/store/index.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { audioFile, openAiClient, sentence } from '../support/compatible-openai-client.js';

let cluster: PgCluster;
let stores: PgStores;
let instances: ServeProcess[] = [];

beforeAll(async () => {
  cluster = await startPgCluster();
  const database = await cluster.createDatabase();
  instances = await Promise.all([0, 1].map(() => startServeProcess({ args: ['--database', database, '--tts-streams', '20'] })));
  stores = await openPgStores(database, { serve: false });
}, 120_000);
afterAll(async () => {
  await stores?.close();
  await Promise.all(instances.map((instance) => instance.stop()));
  await cluster?.close();
});

/** A user with credit and a client for each instance. */
async function clientsFor(id: string, creditMicros: number): Promise<OpenAI[]> {
  await stores.accounts.createUser({ id, creditMicros });
  await stores.accounts.createKey({ userId: id, name: 'k', secretHash: hashKeySecret(`sk_${id}`) });
  return instances.map((instance) => openAiClient(instance.url, `sk_${id}`));
}

const balance = async (id: string) => (await stores.accounts.getUser(id))!.creditMicros;

async function holdsReturned(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await stores.db.query<{ n: number }>('SELECT COUNT(*)::INTEGER AS n FROM holds')).rows[0]!.n > 0) {
    if (Date.now() > deadline) throw new Error('holds were not settled in 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('two instances on one PostgreSQL', () => {
  it('transcribe on one and speak on the other, both billed on the shared wallet', async () => {
    const [a, b] = await clientsFor('shared', creditsToMicros(10));
    const transcript = await a!.audio.transcriptions.create({ file: await audioFile('slt_01.wav'), model: 'whisper-1', response_format: 'verbose_json' });
    expect(transcript.text).toContain('saturday');
    await (await b!.audio.speech.create({ model: 'tts-1', input: sentence, voice: 'nova', response_format: 'wav' })).arrayBuffer();
    await holdsReturned();
    expect(creditsToMicros(10) - (await balance('shared'))).toBe(priceOf({ kind: 'asr', seconds: 2.41 }) + priceOf({ kind: 'tts', characters: sentence.length }));
  }, 60_000);

  it('serve only what the balance covers when 12 speech requests race across both, never below zero', async () => {
    const price = priceOf({ kind: 'tts', characters: sentence.length });
    const credit = Math.round(3.5 * price);
    const clients = await clientsFor('racer', credit);
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, async (_, i) => {
        const response = await clients[i % 2]!.audio.speech.create({ model: 'tts-1', input: sentence, voice: 'alloy', response_format: 'pcm' });
        return (await response.arrayBuffer()).byteLength;
      }),
    );
    const refused = results.filter((result) => result.status === 'rejected').map((result) => (result as PromiseRejectedResult).reason as InstanceType<typeof OpenAI.APIError>);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    expect(refused.map((error) => error.status)).toEqual(Array(9).fill(402));
    await holdsReturned();
    expect(await balance('racer')).toBe(credit - 3 * price);
  }, 60_000);

  it('serve only what the balance covers when transcriptions race across both', async () => {
    const price = priceOf({ kind: 'asr', seconds: 2.41 });
    const credit = Math.round(2.5 * price);
    const clients = await clientsFor('listener', credit);
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, async (_, i) => clients[i % 2]!.audio.transcriptions.create({ file: await audioFile('slt_01.wav'), model: 'whisper-1' })),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(2);
    expect(results.filter((result) => result.status === 'rejected').map((result) => ((result as PromiseRejectedResult).reason as InstanceType<typeof OpenAI.APIError>).status)).toEqual(Array(4).fill(402));
    await holdsReturned();
    expect(await balance('listener')).toBe(credit - 2 * price);
  }, 60_000);
});
