import { afterEach, describe, expect, it, vi } from 'vitest';
import { CreditHold, type UsagePricing } from '../../src/service/store/credit-hold.js';
import type { AccountStore } from '../../src/service/store/types.js';
import { authHeaders, fixture, startHarness, type Harness } from '../support/service-store-harness.js';
import { connectLive } from '../support/service-live-client.js';

/** A store that records every hold and settle it is asked for. */
function recordingStore() {
  const calls: Array<{ call: 'hold' | 'settle'; holdId: string; micros: number }> = [];
  const store = {
    hold: async (_userId: string, holdId: string, micros: number) => {
      calls.push({ call: 'hold', holdId, micros });
      return { held: true, balanceMicros: 1_000_000 };
    },
    settle: async (_userId: string, holdId: string, micros: number) => {
      calls.push({ call: 'settle', holdId, micros });
      return { applied: micros > 0, balanceMicros: 1_000_000 };
    },
  } as unknown as AccountStore;
  return { store, calls };
}

const pricing: UsagePricing = { price: (usage) => 10 * (usage.kind === 'tts' ? usage.characters : 0), describe: () => 'tts' };
const principal = { userId: 'ada', keyId: 'k' } as never;

describe('a credit hold', () => {
  it('reaches the store settled once, whatever its holder does: a second settle (sooner, later, with more delivered) bills nothing more', async () => {
    const { store, calls } = recordingStore();
    const hold = new CreditHold(store, pricing, principal, 'req-1');
    await hold.extend({ kind: 'tts', characters: 50 });
    const [first, racing] = [hold.settle({ kind: 'tts', characters: 20 }), hold.settle({ kind: 'tts', characters: 50 })];
    await Promise.all([first, racing]);
    await hold.settle(null);
    expect(calls).toEqual([
      { call: 'hold', holdId: 'req-1', micros: 500 },
      { call: 'settle', holdId: 'req-1', micros: 200 },
    ]);
    await expect(hold.extend({ kind: 'tts', characters: 5 })).rejects.toThrow('hold req-1 is already settled');
  });
});

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('the service\'s credit holds', () => {
  it('are each settled exactly once at the store, over synthesis, a live session and recognition', async () => {
    h = await startHarness();
    const accounts = h.services.stores.accounts;
    const holds = vi.spyOn(accounts, 'hold');
    const settles = vi.spyOn(accounts, 'settle');
    const tts = await fetch(`${h.url}/v1/tts`, {
      method: 'POST',
      headers: { ...authHeaders(h.users.carol), 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'One hold, settled once.', format: 'pcm' }),
    });
    expect(tts.status).toBe(200);
    await tts.arrayBuffer();
    const live = await connectLive(`${h.url.replace('http', 'ws')}/v1/tts/live`, authHeaders(h.users.carol));
    live.send({ event: 'start', request: { text: '', format: 'pcm' } });
    live.send({ event: 'text', text: 'A live session holds per segment. ' });
    live.send({ event: 'flush' });
    await live.waitFor((event) => event.event === 'audio');
    live.send({ event: 'stop' });
    live.ws.close();
    const form = new FormData();
    form.set('audio', new Blob([new Uint8Array(await fixture('slt_00.wav'))]), 'speech.wav');
    const asr = await fetch(`${h.url}/v1/asr`, { method: 'POST', headers: authHeaders(h.users.alice), body: form });
    expect(asr.status).toBe(200);
    await asr.arrayBuffer();
    const deadline = Date.now() + 10_000;
    const openHolds = () => (h!.services.stores.db.prepare('SELECT COUNT(*) AS n FROM holds').get() as { n: number }).n;
    while (openHolds() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    const held = [...new Set(holds.mock.calls.map(([, holdId]) => holdId))];
    const settledTimes = (holdId: string) => settles.mock.calls.filter(([, id]) => id === holdId).length;
    expect(held.length).toBeGreaterThanOrEqual(3);
    expect(held.map((holdId) => [holdId, settledTimes(holdId)])).toEqual(held.map((holdId) => [holdId, 1]));
  }, 60_000);
});
