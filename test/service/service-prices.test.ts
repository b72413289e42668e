import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/service/accounts.js';
import { hashKeySecret, priceOf, StoreAccountGate } from '../../src/service/store/index.js';
import type { AccountStore, ApiKeyRecord } from '../../src/service/store/types.js';

/** The documented price list, in micro-credits (1 credit = 1 000 000). */
const prices = { ttsPerCharacter: 15, asrPerSecond: 100, voiceDesignPerRequest: 10_000 };

describe('prices', () => {
  it('charges 15 per character of speech, 100 per second of audio (rounded up) and 10 000 per voice design', () => {
    expect(priceOf({ kind: 'tts', characters: 1000 })).toBe(15_000);
    expect(priceOf({ kind: 'tts', characters: 0 })).toBe(0);
    expect(priceOf({ kind: 'tts', characters: -3 })).toBe(0);
    expect(priceOf({ kind: 'tts', characters: 2.4 })).toBe(2 * prices.ttsPerCharacter);
    expect(priceOf({ kind: 'asr', seconds: 2 })).toBe(200);
    expect(priceOf({ kind: 'asr', seconds: 2.001 })).toBe(201);
    expect(priceOf({ kind: 'asr', seconds: -1 })).toBe(0);
    expect(priceOf({ kind: 'voice-design' })).toBe(prices.voiceDesignPerRequest);
  });

  it('a gate takes a partial price list over the defaults', async () => {
    const debits: { micros: number; description: string }[] = [];
    const store = { debit: async (_user: string, micros: number, _id: string, description: string) => void debits.push({ micros, description }) };
    const gate = new StoreAccountGate(store as never, { pricing: { voiceDesignMicrosPerRequest: 7 } });
    expect(gate.pricing).toEqual({ ttsMicrosPerCharacter: 15, asrMicrosPerSecond: 100, voiceDesignMicrosPerRequest: 7 });
    const principal = { userId: 'u', keyId: 'k' };
    await gate.charge(principal, { kind: 'voice-design' }, 'r1');
    await gate.charge(principal, { kind: 'tts', characters: 10 }, 'r2');
    await gate.charge(principal, { kind: 'asr', seconds: 1.5 }, 'r3');
    expect(debits).toEqual([
      { micros: 7, description: 'voice design: 1 request' },
      { micros: 150, description: 'tts: 10 characters' },
      { micros: 150, description: 'asr: 1.5 s of audio' },
    ]);
  });
});

/** The part of an AccountStore the gate reads: keys by hash and users with their credit. */
function memoryStore(keys: Record<string, Partial<ApiKeyRecord>>, users: Record<string, number>) {
  const records = Object.entries(keys).map(([secret, key], i) => ({ secretHash: hashKeySecret(secret), record: { id: `k${i}`, userId: 'ann', name: secret, createdAt: '', expiresAt: null, revokedAt: null, ...key } }));
  return {
    findKeyByHash: async (hash: string) => records.find((r) => r.secretHash === hash)?.record ?? null,
    getUser: async (id: string) => (id in users ? { id, creditMicros: users[id]! } : null),
  } as unknown as AccountStore;
}

describe('the account gate', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  const store = memoryStore(
    {
      sk_live: {},
      sk_revoked: { revokedAt: '2025-12-01T00:00:00Z' },
      sk_expired: { expiresAt: now.toISOString() },
      sk_later: { expiresAt: '2026-01-01T12:00:01Z' },
      sk_broke: { userId: 'bob' },
    },
    { ann: 1, bob: 0 },
  );
  const gate = new StoreAccountGate(store, { now: () => now, rateLimit: { requestsPerSecond: 1, burst: 1, liveSessions: 1 } });

  it('takes a key with or without "Bearer " and refuses unknown, revoked and expired keys', async () => {
    expect(await gate.authenticate('sk_live')).toEqual({ userId: 'ann', keyId: 'k0' });
    expect(await gate.authenticate('Bearer  sk_live ')).toEqual({ userId: 'ann', keyId: 'k0' });
    expect(await gate.authenticate('bearer sk_later')).toEqual({ userId: 'ann', keyId: 'k3' });
    for (const refused of [undefined, '', 'Bearer ', 'sk_other', 'sk_revoked', 'sk_expired']) {
      expect(await gate.authenticate(refused), String(refused)).toBeNull();
    }
  });

  it('lets a user with any credit left work and refuses one with none with a 402 saying how to add credit', async () => {
    await expect(gate.ensureCredit({ userId: 'ann', keyId: 'k0' })).resolves.toBeUndefined();
    for (const userId of ['bob', 'gone']) {
      const error = await gate.ensureCredit({ userId, keyId: 'k' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ status: 402, message: expect.stringContaining('shoal credit add') });
    }
  });

  it('admits requests by the key\'s rate limit and hands back a release', async () => {
    const release = await gate.admit({ userId: 'ann', keyId: 'k9' }, 'live-session');
    expect(typeof release).toBe('function');
    await expect(gate.admit({ userId: 'ann', keyId: 'k9' }, 'live-session')).rejects.toThrow(/too many live sessions/);
  });

  it('uses the wall clock for expiry when given none', async () => {
    const wall = new StoreAccountGate(memoryStore({ sk_past: { expiresAt: '2000-01-01T00:00:00Z' }, sk_future: { expiresAt: '2999-01-01T00:00:00Z' } }, { ann: 1 }));
    expect(await wall.authenticate('sk_past')).toBeNull();
    expect(await wall.authenticate('sk_future')).not.toBeNull();
  });
});
