import { ServiceError, type Principal, type Reservation, type Usage } from '../accounts.js';
import { countHold } from '../../metrics/index.js';
import { formatMicros } from './ids.js';
import type { AccountStore } from './types.js';

/** Prices usage in micro-credits and names it for the ledger. */
export interface UsagePricing {
  price(usage: Usage): number;
  describe(usage: Usage): string;
}

/** Thrown (as a 402) when the balance cannot cover the price of the work asked for. */
export class InsufficientCreditError extends ServiceError {
  constructor(
    readonly neededMicros: number,
    readonly balanceMicros: number,
  ) {
    super(
      402,
      `not enough credit: this needs ${formatMicros(neededMicros)} credits and the balance is ${formatMicros(balanceMicros)}; ` +
        'add credit with `shoal credit add <user> <amount>` or send less',
    );
    this.name = 'InsufficientCreditError';
  }
}

/** A reservation backed by one hold row in the account store (see AccountStore.hold/settle). */
export class CreditHold implements Reservation {
  private heldMicros = 0;
  private settled: Promise<number> | undefined;

  constructor(
    private readonly store: AccountStore,
    private readonly pricing: UsagePricing,
    private readonly principal: Principal,
    private readonly holdId: string,
  ) {}

  async extend(usage: Usage): Promise<void> {
    if (this.settled) throw new Error(`hold ${this.holdId} is already settled`);
    const micros = this.pricing.price(usage);
    const result = await this.store.hold(this.principal.userId, this.holdId, micros);
    countHold(result.held ? 'held' : 'refused');
    if (!result.held) throw new InsufficientCreditError(micros, result.balanceMicros);
    this.heldMicros += micros;
  }

  settle(delivered: Usage | null): Promise<number> {
    this.settled ??= (async () => {
      const micros = delivered ? this.quote(delivered) : 0;
      const description = delivered ? this.pricing.describe(delivered) : 'nothing delivered';
      await this.store.settle(this.principal.userId, this.holdId, micros, description);
      return micros;
    })();
    return this.settled;
  }

  quote(usage: Usage): number {
    return Math.min(this.pricing.price(usage), this.heldMicros);
  }

  /** Micro-credits held so far (tests, logs). */
  get held(): number {
    return this.heldMicros;
  }
}
