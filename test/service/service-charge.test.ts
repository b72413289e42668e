/**
 * The service reports what each request is billed (the `Shoal-Charge` header, the live socket's `utterance_end`
 * and `finish`, `/v1/listen`'s `Metadata`), equal to what the account store debits; without billing, nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpeechClient, type LiveEvent } from '../../src/client/index.js';
import { startEmbeddedService, type EmbeddedService } from '../../src/service/index.js';
import { clip, openLive } from '../support/deepgram-sdk-client.js';
import { fixture, startHarness, type Harness, type TestUser } from '../support/service-store-harness.js';

let h: Harness;
let unbilled: EmbeddedService;
beforeAll(async () => {
  [h, unbilled] = await Promise.all([startHarness({ rateLimit: { requestsPerSecond: 1000, burst: 1000 } }), startEmbeddedService()]);
});
afterAll(async () => Promise.all([h?.close(), unbilled?.close()]));

const clientOf = (user: TestUser) => new SpeechClient({ baseUrl: h.url, apiKey: user.key, live: { utteranceEndEvents: true } });

/** Micro-credits the store debited `user` for `work` (billing settles after the answer: waits until it stops changing). */
async function debited(user: TestUser, work: () => Promise<void>): Promise<number> {
  const total = () => h.services.stores.accounts.debitedMicros(user.id);
  const before = await total();
  await work();
  let last = Number.NaN;
  for (let i = 0; i < 100; i++) {
    const now = await total();
    if (now === last) return now - before;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return last - before;
}

const micros = (credits: number | undefined) => (credits === undefined ? undefined : Math.round(credits * 1e6));

describe('the charge each request reports', () => {
  it('POST /v1/tts and /v1/asr: the Shoal-Charge header is the debit', async () => {
    const client = clientOf(h.users.alice);
    let ttsCharge: number | undefined;
    const tts = await debited(h.users.alice, async () => {
      const stream = client.tts({ text: 'Your table for two is booked.', format: 'pcm', sample_rate: 16000 });
      await stream.collect();
      ttsCharge = stream.charge;
    });
    expect(tts).toBe('Your table for two is booked.'.length * 15);
    expect(micros(ttsCharge)).toBe(tts);
    let asrCharge: number | undefined;
    const asr = await debited(h.users.alice, async () => {
      asrCharge = (await client.transcribe(await fixture('slt_00.wav'))).charge;
    });
    expect(asr).toBeGreaterThan(0);
    expect(micros(asrCharge)).toBe(asr);
  });

  it('the live TTS socket: each utterance_end carries its charge, finish the round, and they sum to the debit', async () => {
    const events: LiveEvent[] = [];
    const debit = await debited(h.users.bob, async () => {
      const session = await clientOf(h.users.bob).live({ format: 'pcm', sample_rate: 16000 });
      const reading = (async () => {
        for await (const event of session) events.push(event);
      })();
      session.send('Good morning. ');
      await session.flush();
      session.send('Your table is ready.');
      await session.flush();
      await session.stop();
      session.close();
      await reading;
    });
    expect(debit).toBe('Good morning. Your table is ready.'.length * 15 - 15);
    const utterances = events.filter((event) => event.type === 'utterance-end').map((event) => micros(event.charge));
    expect(utterances).toHaveLength(2);
    expect(utterances.reduce((sum, charge) => sum! + charge!, 0)).toBe(debit);
    const finish = events.find((event) => event.type === 'finish');
    expect(finish && micros(finish.charge)).toBe(debit);
  });

  it('/v1/listen: the closing Metadata carries shoal_charge, read through @deepgram/sdk', async () => {
    let metadata: Record<string, unknown> | undefined;
    const debit = await debited(h.users.carol, async () => {
      const live = await openLive(h.url, h.users.carol.key, {});
      await live.send(clip('dev_01.wav'), 0);
      live.socket.sendCloseStream({ type: 'CloseStream' });
      await live.closed;
      metadata = live.messages.find((message) => message.type === 'Metadata');
    });
    expect(debit).toBeGreaterThan(0);
    expect(metadata).toMatchObject({ type: 'Metadata', channels: 1 });
    expect(micros(Number(metadata!.shoal_charge))).toBe(debit);
  });

  it('reports no charge where requests are not billed (one key, no account store)', async () => {
    const client = new SpeechClient({ baseUrl: unbilled.url, apiKey: unbilled.apiKey });
    const stream = client.tts({ text: 'Hello there.', format: 'pcm', sample_rate: 16000 });
    await stream.collect();
    expect(stream.charge).toBeUndefined();
    expect((await client.transcribe(await fixture('slt_00.wav'))).charge).toBeUndefined();
    const response = await fetch(`${unbilled.url}/v1/tts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${unbilled.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Hello.', format: 'pcm' }),
    });
    await response.arrayBuffer();
    expect(response.headers.get('shoal-charge')).toBeNull();
  });
});
