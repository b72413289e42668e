import { describe, expect, it } from 'vitest';
import { priceOf, StoreAccountGate } from '../src/service/store/index.js';

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
