import { afterEach, describe, expect, it } from 'vitest';
import { metricOf } from '../support/prometheus-text.js';
import { concatSamples, encodeWav, decodeAudio } from '../../src/audio/index.js';
import { hashKeySecret, priceOf } from '../../src/service/store/index.js';
import { authHeaders, fixture, startHarness, type Harness, type TestUser } from '../support/service-store-harness.js';
import { connectLive } from '../support/service-live-client.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function userWith(harness: Harness, id: string, creditMicros: number): Promise<TestUser> {
  await harness.services.stores.accounts.createUser({ id, creditMicros });
  await harness.services.stores.accounts.createKey({ userId: id, name: 'k', secretHash: hashKeySecret(`sk_${id}`) });
  return { id, key: `sk_${id}` };
}

const balance = async (harness: Harness, id: string) => (await harness.services.stores.accounts.getUser(id))!.creditMicros;
const openHolds = (harness: Harness) => (harness.services.stores.db.prepare('SELECT COUNT(*) AS n FROM holds').get() as { n: number }).n;

async function until(test: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const sentence = (i: number) => `Sentence number ${i} keeps the answer going a little longer. `;

describe('credit holds', () => {
  it('serves only what the balance covers when 20 requests race, and never goes below zero', async () => {
    // Every request is admitted as a stream, so the credit holds alone decide who is served.
    h = await startHarness({ rateLimit: { requestsPerSecond: 1000, burst: 1000 }, limits: { ttsStreams: 20 } });
    const text = Array.from({ length: 32 }, (_, i) => sentence(i)).join('').slice(0, 600).trim();
    const price = priceOf({ kind: 'tts', characters: text.length });
    const racer = await userWith(h, 'racer', 3 * price + price / 2);
    const harness = h;
    const refused402 = () => metricOf(harness.url, 'shoal_service_refusals_total{status="402"}');
    const holdsRefused = () => metricOf(harness.url, 'shoal_service_credit_holds_total{outcome="refused"}');
    const holdsTaken = () => metricOf(harness.url, 'shoal_service_credit_holds_total{outcome="held"}');
    const [refusedBefore, refusedHoldsBefore, heldBefore] = [await refused402(), await holdsRefused(), await holdsTaken()];
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await fetch(`${harness.url}/v1/tts`, {
          method: 'POST',
          headers: { ...authHeaders(racer), 'content-type': 'application/json' },
          body: JSON.stringify({ text, format: 'pcm', chunk_length: 300 }),
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 402)).toHaveLength(17);
    expect(await refused402()).toBe(refusedBefore + 17);
    expect(await holdsRefused()).toBe(refusedHoldsBefore + 17);
    expect(await holdsTaken()).toBe(heldBefore + 3);
    await until(async () => openHolds(harness) === 0);
    expect(await balance(harness, 'racer')).toBe(Math.round(3 * price + price / 2) - 3 * price);
    expect(await harness.services.stores.accounts.debitedMicros('racer')).toBe(3 * price);
  }, 120_000);

  it('ends a live session with a 402 error event and close code 1008 when the next segment is not covered', async () => {
    h = await startHarness();
    const segment = sentence(1).trim();
    const live = await userWith(h, 'live', 2 * priceOf({ kind: 'tts', characters: segment.length }) + 10);
    const client = await connectLive(`${h.url.replace('http', 'ws')}/v1/tts/live`, authHeaders(live));
    client.send({ event: 'start', request: { text: '', format: 'pcm' } });
    for (let i = 0; i < 5; i++) client.send({ event: 'text', text: segment + ' ' }), client.send({ event: 'flush' });
    const error = await client.waitFor((event) => event.event === 'error');
    expect(error.error).toMatchObject({ status: 402, message: expect.stringMatching(/^not enough credit: this needs 0\.000\d+ credits/) });
    expect(await client.closed).toMatchObject({ code: 1008 });
    expect(client.events.filter((event) => event.event === 'audio').length).toBeGreaterThan(0);
    const harness = h;
    await until(async () => openHolds(harness) === 0);
    expect(await balance(h, 'live')).toBe(10);
  }, 60_000);

  it('bills the audio a live client received before it dropped the socket mid-segment, once', async () => {
    h = await startHarness();
    const client = await connectLive(`${h.url.replace('http', 'ws')}/v1/tts/live`, authHeaders(h.users.carol));
    const text = Array.from({ length: 30 }, (_, i) => sentence(i)).join('');
    client.send({ event: 'start', request: { text: '', format: 'pcm', chunk_length: 100 } });
    client.send({ event: 'text', text });
    client.send({ event: 'flush' });
    await client.waitFor((event) => event.event === 'audio');
    client.ws.terminate();
    const harness = h;
    await until(async () => openHolds(harness) === 0);
    const debited = await h.services.stores.accounts.debitedMicros('carol');
    expect(debited).toBeGreaterThan(0);
    expect(debited).toBeLessThan(priceOf({ kind: 'tts', characters: text.trim().length }) / 2);
    const rows = h.services.stores.db.prepare("SELECT COUNT(*) AS n FROM ledger WHERE user_id = 'carol' AND amount_micros < 0").get() as { n: number };
    expect(rows.n).toBe(1);
  }, 60_000);

  // Recognition stops at the next utterance boundary (pieces of at most 20 s of audio), so release can take seconds.
  it('stops recognising and bills nothing when the client aborts a long /v1/asr request', async () => {
    h = await startHarness();
    const speech = await decodeAudio(await fixture('slt_00.wav'));
    const repeats = Math.ceil((60 * speech.sampleRate) / speech.samples.length);
    const long = encodeWav(concatSamples(Array.from({ length: repeats }, () => speech.samples)), speech.sampleRate);
    const form = new FormData();
    form.set('audio', new Blob([new Uint8Array(long)]), 'long.wav');
    const controller = new AbortController();
    const request = fetch(`${h.url}/v1/asr`, { method: 'POST', headers: authHeaders(h.users.alice), body: form, signal: controller.signal });
    const harness = h;
    await until(async () => openHolds(harness) === 1, 20_000);
    controller.abort();
    await expect(request).rejects.toThrow();
    await until(async () => openHolds(harness) === 0, 50_000);
    expect(await h.services.stores.accounts.debitedMicros('alice')).toBe(0);
    expect(await balance(h, 'alice')).toBe(10_000_000);
  }, 120_000);
});
