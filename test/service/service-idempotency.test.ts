/** POSTs sent with `Idempotency-Key`: served once and billed once; a retry gets the first response. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceOf } from '../../src/service/store/index.js';
import { authHeaders, startHarness, type Harness } from '../support/service-store-harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
}, 60_000);
afterAll(async () => harness?.close());

const tts = (user = harness.users.alice, key?: string, text = 'Served once, billed once.') =>
  fetch(`${harness.url}/v1/tts`, {
    method: 'POST',
    headers: { ...authHeaders(user), 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify({ text, format: 'wav' }),
  });
const debited = (id: string) => harness.services.stores.accounts.debitedMicros(id);

describe('Idempotency-Key', () => {
  it('answers a retry with the first response, not run and not billed again', async () => {
    const before = await debited('alice');
    const first = await tts(harness.users.alice, 'retry-1');
    expect(first.status).toBe(200);
    const audio = Buffer.from(await first.arrayBuffer());
    expect(audio.length).toBeGreaterThan(1000);
    const billed = (await debited('alice')) - before;
    expect(billed).toBe(priceOf({ kind: 'tts', characters: 'Served once, billed once.'.length }));
    const retry = await tts(harness.users.alice, 'retry-1');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(Buffer.from(await retry.arrayBuffer()).equals(audio)).toBe(true);
    expect((await debited('alice')) - before).toBe(billed);
  });

  it('runs requests without the header, or with another key, each time', async () => {
    const before = await debited('bob');
    await (await tts(harness.users.bob)).arrayBuffer();
    await (await tts(harness.users.bob)).arrayBuffer();
    await (await tts(harness.users.bob, 'other-a')).arrayBuffer();
    await (await tts(harness.users.bob, 'other-b')).arrayBuffer();
    expect((await debited('bob')) - before).toBe(4 * priceOf({ kind: 'tts', characters: 'Served once, billed once.'.length }));
  });

  it('keeps keys per user: the same key of another user is another request', async () => {
    const alice = await tts(harness.users.alice, 'shared-key');
    const carol = await tts(harness.users.carol, 'shared-key');
    await Promise.all([alice.arrayBuffer(), carol.arrayBuffer()]);
    expect(carol.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses the same key with other input (422) and a malformed key (400), changing nothing', async () => {
    await (await tts(harness.users.alice, 'input-1', 'The first text.')).arrayBuffer();
    const before = await debited('alice');
    const other = await tts(harness.users.alice, 'input-1', 'Another text.');
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ status: 422, message: expect.stringMatching(/different request/) });
    const bad = await tts(harness.users.alice, 'has space');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ message: expect.stringMatching(/Idempotency-Key must be/) });
    expect(await debited('alice')).toBe(before);
  });

  it('answers 409 to a retry while the first is still streaming, then replays it once done', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `Sentence ${i} keeps this answer streaming for a while.`).join(' ');
    const first = await fetch(`${harness.url}/v1/tts`, {
      method: 'POST',
      headers: { ...authHeaders(harness.users.bob), 'content-type': 'application/json', 'idempotency-key': 'busy-1' },
      body: JSON.stringify({ text: long, format: 'pcm' }),
    });
    const reader = first.body!.getReader();
    await reader.read();
    const during = await fetch(`${harness.url}/v1/tts`, {
      method: 'POST',
      headers: { ...authHeaders(harness.users.bob), 'content-type': 'application/json', 'idempotency-key': 'busy-1' },
      body: JSON.stringify({ text: long, format: 'pcm' }),
    });
    expect(during.status).toBe(409);
    expect(await during.json()).toMatchObject({ message: expect.stringMatching(/still running/) });
    while (!(await reader.read()).done);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await fetch(`${harness.url}/v1/tts`, {
      method: 'POST',
      headers: { ...authHeaders(harness.users.bob), 'content-type': 'application/json', 'idempotency-key': 'busy-1' },
      body: JSON.stringify({ text: long, format: 'pcm' }),
    });
    expect(after.status).toBe(200);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
  }, 30_000);

  it('gives the key back after a refusal a retry can mend (402), so the retry runs once credit is there', async () => {
    const accounts = harness.services.stores.accounts;
    await accounts.createUser({ id: 'broke', creditMicros: 0 });
    const { hashKeySecret } = await import('../../src/service/store/index.js');
    await accounts.createKey({ userId: 'broke', name: 'k', secretHash: hashKeySecret('sk_broke') });
    const broke = { id: 'broke', key: 'sk_broke' };
    expect((await tts(broke, 'after-credit')).status).toBe(402);
    await accounts.addCredit('broke', 1_000_000, 'test');
    const paid = await tts(broke, 'after-credit');
    expect(paid.status).toBe(200);
    expect(paid.headers.get('idempotent-replayed')).toBeNull();
    await paid.arrayBuffer();
  });
});
