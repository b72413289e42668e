import pRetry from 'p-retry';

/** Statuses worth another attempt: request timeout, rate limit and server failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Delay before retry number `retry` (0 for the first retry): `Retry-After` when the server sent one,
 * else exponential backoff from `baseMs` with ±25 % jitter; both capped at `maxMs`.
 */
export function retryDelayMs(retry: number, baseMs: number, maxMs: number, retryAfterMs?: number, random = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, maxMs);
  const exponential = Math.min(baseMs * 2 ** retry, maxMs);
  return Math.min(maxMs, Math.round(exponential * (0.75 + random() * 0.5)));
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** How a call is retried: attempts after the first, the backoff range (ms), and which failures are worth it. */
export interface RetryPlan {
  retries: number;
  baseMs: number;
  maxMs: number;
  signal?: AbortSignal;
  retryable(error: unknown): boolean;
  /** The server's `Retry-After` for this failure, ms, when it sent one. */
  retryAfterMs?(error: unknown): number | undefined;
}

/**
 * Runs `attempt` (given the retry number, 0 first) under p-retry: retryable failures are retried after
 * `retryDelayMs` (Retry-After, else backoff with jitter); others, and the last failure, are thrown as they are.
 */
export function withRetries<T>(attempt: (retry: number) => Promise<T>, plan: RetryPlan): Promise<T> {
  return pRetry((attemptNumber) => attempt(attemptNumber - 1), {
    retries: plan.retries,
    minTimeout: 0,
    maxTimeout: 0,
    signal: plan.signal,
    shouldRetry: async ({ error, retriesConsumed }) => {
      if (!plan.retryable(error)) return false;
      await sleep(retryDelayMs(retriesConsumed, plan.baseMs, plan.maxMs, plan.retryAfterMs?.(error)), plan.signal);
      return true;
    },
  });
}
