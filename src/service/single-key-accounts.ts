import { timingSafeEqual, createHash } from 'node:crypto';
import type { AccountGate, Principal, Reservation, Usage } from './accounts.js';

/** One recorded debit (kept in memory; part 2's store persists them). */
export interface ChargeRecord {
  principal: Principal;
  usage: Usage;
  requestId: string;
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/**
 * The account gate of a single-user server: exactly one accepted bearer key, unlimited credit,
 * no rate limit. Charges are recorded (once per request id) so usage can still be inspected.
 */
export class SingleKeyAccounts implements AccountGate {
  readonly charges: ChargeRecord[] = [];
  private readonly keyDigest: Buffer;
  private readonly charged = new Set<string>();
  private readonly principal: Principal = { userId: 'dev', keyId: 'dev-key' };

  constructor(apiKey: string) {
    if (!apiKey) throw new RangeError('SingleKeyAccounts needs a non-empty API key');
    this.keyDigest = digest(apiKey);
  }

  async authenticate(bearerKey: string | undefined): Promise<Principal | null> {
    if (!bearerKey) return null;
    return timingSafeEqual(digest(bearerKey), this.keyDigest) ? this.principal : null;
  }

  async ensureCredit(): Promise<void> {}

  async isActive(): Promise<boolean> {
    return true;
  }

  /** Credit is unlimited: the reservation only records what it settles. */
  async reserve(principal: Principal, _usage: Usage, requestId: string): Promise<Reservation> {
    return {
      extend: async () => {},
      settle: async (delivered) => {
        if (delivered) await this.charge(principal, delivered, requestId);
        return null;
      },
      quote: () => null,
    };
  }

  async charge(principal: Principal, usage: Usage, requestId: string): Promise<void> {
    if (this.charged.has(requestId)) return;
    this.charged.add(requestId);
    this.charges.push({ principal, usage, requestId });
  }

  async admit(): Promise<() => void> {
    return () => {};
  }
}
