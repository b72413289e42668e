import { encode } from '@msgpack/msgpack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWav } from '../../src/audio/index.js';
import { ServiceError } from '../../src/service/accounts.js';
import { formatMicros, type StoreAccountGate } from '../../src/service/store/index.js';
import { authHeaders, fixture, startHarness, type Harness, type TestUser } from '../support/service-store-harness.js';

// End-to-end prices (documented: 15 micro-credits per character, 100 per second of audio, 10 000 per voice
// design); the price list itself is tested in service-prices.test.ts.

describe('what each billed endpoint debits', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ rateLimit: { requestsPerSecond: 1000, burst: 1000 } });
  });
  afterAll(async () => h?.close());

  const creditOf = async (user: TestUser) => (await h.services.stores.accounts.getUser(user.id))!.creditMicros;
  /** Billing runs when the response has finished: waits until the user's credit stops changing. */
  async function settledCredit(user: TestUser): Promise<number> {
    let last = Number.NaN;
    for (let i = 0; i < 100; i++) {
      const now = await creditOf(user);
      if (now === last) return now;
      last = now;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return last;
  }
  async function debitOf(user: TestUser, request: () => Promise<Response>): Promise<number> {
    const before = await settledCredit(user);
    const response = await request();
    expect(response.status, await response.clone().text().then((t) => t.slice(0, 200))).toBe(200);
    await response.arrayBuffer();
    return before - (await settledCredit(user));
  }

  it('/v1/voice-design: 10 000 per request, whatever the number of candidates', async () => {
    const body = (n: number) => JSON.stringify({ instruction: 'A calm woman', n, reference_text: 'Hello.', seed: 1 });
    const post = (n: number) => () =>
      fetch(`${h.url}/v1/voice-design`, { method: 'POST', headers: { ...authHeaders(h.users.alice), 'content-type': 'application/json', model: 'voice-design-1' }, body: body(n) });
    expect(await debitOf(h.users.alice, post(1))).toBe(10_000);
    expect(await debitOf(h.users.alice, post(3))).toBe(10_000);
  });

  it('/v1/asr: 100 per second of audio, rounded up', async () => {
    const audio = await fixture('slt_00.wav');
    const wav = parseWav(audio);
    const seconds = wav.samples.length / wav.sampleRate;
    const post = () => fetch(`${h.url}/v1/asr`, { method: 'POST', headers: { ...authHeaders(h.users.bob), 'content-type': 'application/msgpack' }, body: encode({ audio }) });
    expect(await debitOf(h.users.bob, post)).toBe(Math.ceil(seconds * 100));
  });

  it('/v1/tts: 15 per character of text, speaker tags not counted', async () => {
    const text = '<|speaker:0|>Good morning.';
    const post = () =>
      fetch(`${h.url}/v1/tts`, { method: 'POST', headers: { ...authHeaders(h.users.carol), 'content-type': 'application/json', model: 's1' }, body: JSON.stringify({ text, format: 'pcm', sample_rate: 16000 }) });
    expect(await debitOf(h.users.carol, post)).toBe('Good morning.'.length * 15);
  });

  it('the wallet shows the credit left, to the micro-credit', async () => {
    const left = await settledCredit(h.users.alice);
    expect(left).toBe(10_000_000 - 20_000);
    const response = await fetch(`${h.url}/wallet/self/api-credit`, { headers: authHeaders(h.users.alice) });
    expect(((await response.json()) as { credit: string }).credit).toBe(formatMicros(left));
    expect(formatMicros(left)).toBe('9.98');
  });

  it('refuses work with 402 once the credit is spent', async () => {
    const gate = h.services.accounts as StoreAccountGate;
    await h.services.stores.accounts.debit('carol', await creditOf(h.users.carol), 'drain', 'test: spend it all');
    await expect(gate.ensureCredit({ userId: 'carol', keyId: 'k' })).rejects.toThrow(ServiceError);
    const response = await fetch(`${h.url}/v1/tts`, { method: 'POST', headers: { ...authHeaders(h.users.carol), 'content-type': 'application/json', model: 's1' }, body: JSON.stringify({ text: 'Hi.', format: 'pcm' }) });
    expect(response.status).toBe(402);
  });
});
