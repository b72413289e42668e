import { ServiceError } from '../accounts.js';

export interface RateLimitOptions {
  /** Sustained requests per second per key. */
  requestsPerSecond: number;
  /** Requests a key may make at once after being idle (bucket size). */
  burst: number;
  /** Live WebSocket sessions a key may hold open at once. */
  liveSessions: number;
}

export const defaults: RateLimitOptions = {
  requestsPerSecond: 20,
  burst: 40,
  liveSessions: 5,
};

/** Per-key request rate and live-session cap: one process's (KeyRateLimiter) or a fleet's (PgFleet). */
export interface KeyLimits {
  readonly rate: RateLimitOptions;
  /** Takes one request (and a live-session slot); throws ServiceError 429 with Retry-After when over; returns the slot's release. */
  admit(keyId: string, kind: 'request' | 'live-session'): (() => void) | Promise<() => void>;
}

interface Bucket {
  tokens: number;
  refilledAtMs: number;
  liveSessions: number;
}

/** A token bucket per key for requests, and a counter per key for concurrent live sessions. */
export class KeyRateLimiter implements KeyLimits {
  private readonly buckets = new Map<string, Bucket>();
  readonly rate: RateLimitOptions;
  readonly options: RateLimitOptions;

  constructor(
    options: Partial<RateLimitOptions> = {},
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.options = { ...defaults, ...options };
    this.rate = this.options;
    for (const [name, value] of Object.entries(this.options)) {
      if (!(typeof value === 'number' && value > 0)) throw new RangeError(`rate limit ${name} must be positive, got ${value}`);
    }
  }

  /** Takes one request token (and a live-session slot); throws ServiceError 429 with Retry-After when over. */
  admit(keyId: string, kind: 'request' | 'live-session'): () => void {
    const bucket = this.refill(keyId);
    if (kind === 'live-session' && bucket.liveSessions >= this.options.liveSessions) {
      throw new ServiceError(
        429,
        `too many live sessions: at most ${this.options.liveSessions} at once per API key; close one or reuse a session`,
        1,
      );
    }
    if (bucket.tokens < 1) {
      const waitSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.options.requestsPerSecond));
      throw new ServiceError(
        429,
        `rate limit exceeded: at most ${this.options.requestsPerSecond} requests per second per API key; retry after ${waitSeconds} s`,
        waitSeconds,
      );
    }
    bucket.tokens -= 1;
    if (kind === 'request') return () => {};
    bucket.liveSessions += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      bucket.liveSessions -= 1;
    };
  }

  private refill(keyId: string): Bucket {
    const now = this.nowMs();
    let bucket = this.buckets.get(keyId);
    if (!bucket) {
      bucket = { tokens: this.options.burst, refilledAtMs: now, liveSessions: 0 };
      this.buckets.set(keyId, bucket);
      return bucket;
    }
    const elapsedSeconds = Math.max(0, now - bucket.refilledAtMs) / 1000;
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + elapsedSeconds * this.options.requestsPerSecond);
    bucket.refilledAtMs = now;
    return bucket;
  }
}
