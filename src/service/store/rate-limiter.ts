import { ServiceError } from '../accounts.js';

export interface RateLimitOptions {
  /** Sustained requests per second per key. */
  requestsPerSecond: number;
  /** Requests a key may make in one window of burst/requestsPerSecond seconds (see `fixedWindow`). */
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

/**
 * The request rate as one fixed window per key, the same on one instance and on a fleet: `points` requests
 * per window of `seconds`, the window starting at a key's first request in it. With the defaults (20 per second,
 * bursts of 40) a key may make 40 requests in any 2-second window.
 */
export function fixedWindow(rate: Pick<RateLimitOptions, 'requestsPerSecond' | 'burst'>): { points: number; seconds: number } {
  const seconds = Math.max(1, Math.round(rate.burst / rate.requestsPerSecond));
  return { seconds, points: Math.max(1, Math.round(seconds * rate.requestsPerSecond), rate.burst) };
}

interface KeyWindow {
  startedAtMs: number;
  used: number;
  liveSessions: number;
}

/** One process's per-key request window (`fixedWindow`) and counter of concurrent live sessions. */
export class KeyRateLimiter implements KeyLimits {
  private readonly windows = new Map<string, KeyWindow>();
  private readonly window: { points: number; seconds: number };
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
    this.window = fixedWindow(this.options);
  }

  /** Takes one request of the key's window (and a live-session slot); throws ServiceError 429 with Retry-After when over. */
  admit(keyId: string, kind: 'request' | 'live-session'): () => void {
    const window = this.current(keyId);
    if (kind === 'live-session' && window.liveSessions >= this.options.liveSessions) {
      throw new ServiceError(
        429,
        `too many live sessions: at most ${this.options.liveSessions} at once per API key; close one or reuse a session`,
        1,
      );
    }
    if (window.used >= this.window.points) {
      const leftMs = window.startedAtMs + this.window.seconds * 1000 - this.nowMs();
      const waitSeconds = Math.max(1, Math.ceil(leftMs / 1000));
      throw new ServiceError(
        429,
        `rate limit exceeded: at most ${this.options.requestsPerSecond} requests per second per API key; retry after ${waitSeconds} s`,
        waitSeconds,
      );
    }
    window.used += 1;
    if (kind === 'request') return () => {};
    window.liveSessions += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      window.liveSessions -= 1;
    };
  }

  private current(keyId: string): KeyWindow {
    const now = this.nowMs();
    let window = this.windows.get(keyId);
    if (!window) {
      window = { startedAtMs: now, used: 0, liveSessions: 0 };
      this.windows.set(keyId, window);
    } else if (now - window.startedAtMs >= this.window.seconds * 1000) {
      window.startedAtMs = now;
      window.used = 0;
    }
    return window;
  }
}
