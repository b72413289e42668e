import { ServiceError, type AccountGate, type Principal, type Reservation, type Usage } from '../accounts.js';
import { CreditHold } from './credit-hold.js';
import { hashKeySecret } from './ids.js';
import { KeyRateLimiter, type KeyLimits, type RateLimitOptions } from './rate-limiter.js';
import type { AccountStore, ApiKeyRecord } from './types.js';

export interface Pricing {
  /** Micro-credits per character of synthesised text (TTS, live sessions). */
  ttsMicrosPerCharacter: number;
  /** Micro-credits per second of transcribed audio (rounded up to a whole micro-credit). */
  asrMicrosPerSecond: number;
  /** Micro-credits per voice-design request, whatever the number of candidates. */
  voiceDesignMicrosPerRequest: number;
}

export const defaults: { pricing: Pricing } = {
  pricing: {
    ttsMicrosPerCharacter: 15,
    asrMicrosPerSecond: 100,
    voiceDesignMicrosPerRequest: 10_000,
  },
};

export function priceOf(usage: Usage, pricing: Pricing = defaults.pricing): number {
  switch (usage.kind) {
    case 'tts':
      return Math.max(0, Math.round(usage.characters)) * pricing.ttsMicrosPerCharacter;
    case 'asr':
      return Math.ceil(Math.max(0, usage.seconds) * pricing.asrMicrosPerSecond);
    case 'voice-design':
      return pricing.voiceDesignMicrosPerRequest;
  }
}

export interface StoreAccountGateOptions {
  pricing?: Partial<Pricing>;
  rateLimit?: Partial<RateLimitOptions>;
  /** The rate and live-session limits to use instead of this process's own (a fleet's, shared through the database). */
  keyLimits?: KeyLimits;
  /** Clock for key expiry. */
  now?: () => Date;
  /** A feed of revocations made elsewhere (a fleet's LISTEN), so live sessions end at once. */
  onChange?: (listener: () => void) => () => void;
}

/** AccountGate over an AccountStore: hashed keys with expiry and revocation, exact debits, per-key rate limits. */
export class StoreAccountGate implements AccountGate {
  readonly pricing: Pricing;
  readonly limiter: KeyLimits;
  private readonly now: () => Date;
  readonly onChange?: (listener: () => void) => () => void;

  constructor(
    private readonly store: AccountStore,
    options: StoreAccountGateOptions = {},
  ) {
    this.pricing = { ...defaults.pricing, ...options.pricing };
    this.limiter = options.keyLimits ?? new KeyRateLimiter(options.rateLimit);
    this.now = options.now ?? (() => new Date());
    this.onChange = options.onChange;
  }

  async authenticate(bearerKey: string | undefined): Promise<Principal | null> {
    const secret = bearerKey?.replace(/^bearer\s+/i, '').trim();
    if (!secret) return null;
    const key = await this.store.findKeyByHash(hashKeySecret(secret));
    // A key's user exists: the key references it and users are never deleted.
    if (!key || !this.usable(key)) return null;
    return { userId: key.userId, keyId: key.id };
  }

  async isActive(principal: Principal): Promise<boolean> {
    const key = await this.store.getKey(principal.keyId);
    return key !== null && this.usable(key);
  }

  private usable(key: ApiKeyRecord): boolean {
    if (key.revokedAt) return false;
    return !(key.expiresAt && Date.parse(key.expiresAt) <= this.now().getTime());
  }

  async reserve(principal: Principal, usage: Usage, requestId: string): Promise<Reservation> {
    const hold = new CreditHold(this.store, { price: (u) => priceOf(u, this.pricing), describe }, principal, requestId);
    await hold.extend(usage);
    return hold;
  }

  async ensureCredit(principal: Principal): Promise<void> {
    const user = await this.store.getUser(principal.userId);
    if (!user || user.creditMicros <= 0) {
      throw new ServiceError(402, 'API key invalid or no credit left: add credit with `shoal credit add <user> <amount>`');
    }
  }

  async charge(principal: Principal, usage: Usage, requestId: string): Promise<void> {
    const micros = priceOf(usage, this.pricing);
    await this.store.debit(principal.userId, micros, requestId, describe(usage));
  }

  async admit(principal: Principal, kind: 'request' | 'live-session'): Promise<() => void> {
    return this.limiter.admit(principal.keyId, kind);
  }
}

function describe(usage: Usage): string {
  switch (usage.kind) {
    case 'tts':
      return `tts: ${usage.characters} characters`;
    case 'asr':
      return `asr: ${usage.seconds} s of audio`;
    case 'voice-design':
      return 'voice design: 1 request';
  }
}
