import type { VoiceSettings } from '../engines/types.js';

/**
 * The seams between the inference routes and accounts/billing/voice models.
 * Part 1 of the service runs on `SingleKeyAccounts`; the SQLite-backed stores replace it.
 */

export interface Principal {
  userId: string;
  keyId: string;
}

export type Usage =
  | { kind: 'tts'; characters: number }
  | { kind: 'asr'; seconds: number }
  | { kind: 'voice-design' };

/**
 * Credit set aside for one piece of work before it starts. `extend` grows it (a live session, segment by
 * segment); `settle` bills what was delivered (never more than held) and returns the rest. Only the first
 * `settle` counts; settling with nothing delivered bills nothing.
 */
export interface Reservation {
  extend(usage: Usage): Promise<void>;
  /** Resolves with the micro-credits debited, or null where requests are not billed (no account store). */
  settle(delivered: Usage | null): Promise<number | null>;
  /** The micro-credits settling with `usage` debits (never more than held), or null where requests are not billed. */
  quote(usage: Usage): number | null;
}

export interface AccountGate {
  /** The caller behind a bearer key, or null when the key is missing, unknown, revoked or expired (401). */
  authenticate(bearerKey: string | undefined): Promise<Principal | null>;
  /** Throws ServiceError 402 when the caller has no credit left; called before any work starts. */
  ensureCredit(principal: Principal): Promise<void>;
  /**
   * Holds the price of `usage` before the work starts; throws ServiceError 402 naming the amount needed when
   * the balance cannot cover it. Concurrent reservations never take the balance below zero.
   */
  reserve(principal: Principal, usage: Usage, requestId: string): Promise<Reservation>;
  /** False once the caller's key is revoked or expired (open sessions end). */
  isActive(principal: Principal): Promise<boolean>;
  /** Debits a successful request exactly once; `requestId` makes a repeated call a no-op. */
  charge(principal: Principal, usage: Usage, requestId: string): Promise<void>;
  /** Throws ServiceError 429 (with retryAfterSeconds) when the caller is over its rate; returns a release function for concurrency slots. */
  admit(principal: Principal, kind: 'request' | 'live-session'): Promise<() => void>;
  /**
   * Calls `listener` when a key may have been revoked or a model deleted elsewhere (another instance of a
   * fleet), so open sessions are checked at once rather than at their next periodic check.
   */
  onChange?(listener: () => void): () => void;
}

export interface VoiceResolver {
  /** Voice settings for a `reference_id` the caller may use, or null when there is none it may see (400). */
  resolve(referenceId: string, principal: Principal): Promise<VoiceSettings | null>;
  /** Counts one TTS use of a voice model (`task_count`). */
  recordUse?(referenceId: string): Promise<void>;
}

/** An error the HTTP layer turns into `{status, message}` with that status. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}
