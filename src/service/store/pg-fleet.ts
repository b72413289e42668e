import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ServiceError } from '../accounts.js';
import { refundHolds } from './pg-account-store.js';
import { changesChannel, isUnavailable, StoreUnavailableError, type PgDatabase } from './pg-database.js';
import { fixedWindow, defaults as rateDefaults, type KeyLimits, type RateLimitOptions } from './rate-limiter.js';

export const defaults = {
  /** How often this instance renews its lease (and checks the database for /readyz), in ms. */
  heartbeatMs: 1_000,
  /** A hold or live-session slot of an instance that has not renewed its lease for this long is released, in ms. */
  leaseMs: 30_000,
  /** How often each instance looks for leases that ran out, in ms. */
  sweepEveryMs: 5_000,
  /** Wait before the change listener reconnects after losing the database, in ms. */
  listenRetryMs: 500,
  /**
   * How often the change listener's connection is checked with a query, in ms. A connection that does not answer
   * within `listenCheckTimeoutMs` (a half-open socket: a proxy or network that stops forwarding without closing)
   * is dropped and reopened; until it is back, /readyz answers 503. A lost listener is noticed within the sum.
   */
  listenCheckMs: 5_000,
  listenCheckTimeoutMs: 2_000,
};

export interface FleetOptions {
  heartbeatMs?: number;
  leaseMs?: number;
  sweepEveryMs?: number;
  listenCheckMs?: number;
  listenCheckTimeoutMs?: number;
  rateLimit?: Partial<RateLimitOptions>;
  /** Keep the request-rate counters in this Redis instead of PostgreSQL (each instance falls back to its own count while Redis is away). */
  redisUrl?: string;
  /** Work retried at every heartbeat while the database is reachable (settles that failed during an outage). */
  retry?: () => Promise<unknown>;
  /** Logs what the fleet does on its own (released holds, lost connections). */
  log?: (event: Record<string, unknown>, message: string) => void;
}

/**
 * This instance's membership of a fleet sharing one PostgreSQL: a heartbeat that leases its credit holds
 * and live-session slots (an instance killed with -9 stops renewing, and any other instance returns its
 * holds after the lease), the fleet-wide per-key request rate (rate-limiter-flexible on the same
 * database, or on Redis when given) and live-session cap, and the change feed (LISTEN) that carries revocations and deletions.
 */
export class PgFleet implements KeyLimits {
  readonly rate: RateLimitOptions;
  private readonly settings: Required<Omit<FleetOptions, 'rateLimit' | 'log' | 'retry' | 'redisUrl'>>;
  private readonly limiter: RateLimiterAbstract;
  private readonly redis: Redis | undefined;
  private readonly listeners = new Set<(change: string) => void>();
  private readonly unreleased = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private listener: pg.Client | undefined;
  private listening = false;
  private closed = false;

  constructor(
    private readonly db: PgDatabase,
    /** The id this instance's holds and live-session slots carry. */
    readonly instanceId: string,
    private readonly options: FleetOptions = {},
  ) {
    this.settings = {
      heartbeatMs: options.heartbeatMs ?? defaults.heartbeatMs,
      leaseMs: options.leaseMs ?? defaults.leaseMs,
      sweepEveryMs: options.sweepEveryMs ?? defaults.sweepEveryMs,
      listenCheckMs: options.listenCheckMs ?? defaults.listenCheckMs,
      listenCheckTimeoutMs: options.listenCheckTimeoutMs ?? defaults.listenCheckTimeoutMs,
    };
    this.rate = { ...rateDefaults, ...options.rateLimit };
    // The same fixed window as one process's KeyRateLimiter, counted in the shared store.
    const { points, seconds } = fixedWindow(this.rate);
    const window = {
      keyPrefix: 'rate',
      points,
      duration: seconds,
      // Once a key is over, it is refused from memory until its window ends: no store write per refusal.
      inMemoryBlockOnConsumed: points + 1,
    };
    if (options.redisUrl) {
      this.redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
      let reported = false;
      this.redis.on('error', (error: Error) => {
        if (!reported) options.log?.({ err: error }, 'redis unreachable; each instance counts rate limits on its own meanwhile');
        reported = true;
      });
      this.redis.on('ready', () => (reported = false));
      this.limiter = new RateLimiterRedis({ ...window, storeClient: this.redis, insuranceLimiter: new RateLimiterMemory(window) });
    } else {
      this.limiter = new RateLimiterPostgres({ ...window, storeClient: db.pool, storeType: 'pool', tableName: 'rate_counters', tableCreated: true, clearExpiredByTimeout: false });
    }
  }

  /** Registers the instance, starts the heartbeat, the lease sweep and the change listener. */
  async start(): Promise<void> {
    await this.db.query('INSERT INTO instances (id) VALUES ($1)', [this.instanceId]);
    this.repeat(() => this.heartbeat(), this.settings.heartbeatMs);
    this.repeat(() => this.sweep().catch(() => {}), this.settings.sweepEveryMs);
    this.repeat(() => this.checkListener(), this.settings.listenCheckMs);
    await this.listen();
  }

  /** Whether this instance can reach the database (for /readyz). */
  ready(): boolean {
    return this.db.healthy && this.listening;
  }

  /** Calls `listener` with `key:<id>` or `model:<id>` whenever any instance revokes a key or deletes a model. */
  onChange(listener: (change: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async admit(keyId: string, kind: 'request' | 'live-session'): Promise<() => void> {
    try {
      await this.limiter.consume(keyId);
    } catch (error) {
      if (error instanceof RateLimiterRes) {
        const waitSeconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
        throw new ServiceError(
          429,
          `rate limit exceeded: at most ${this.rate.requestsPerSecond} requests per second per API key; retry after ${waitSeconds} s`,
          waitSeconds,
        );
      }
      throw isUnavailable(error) ? new StoreUnavailableError(error) : error;
    }
    if (kind === 'request') return () => {};
    return this.takeLiveSession(keyId);
  }

  /** A live-session slot of the fleet-wide cap, leased by this instance. */
  private async takeLiveSession(keyId: string): Promise<() => void> {
    const id = randomUUID();
    const taken = await this.db.transaction(async (client) => {
      // One key's admissions take turns, so two instances cannot both see the last free slot.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [keyId]);
      const { rows } = await client.query<{ n: number }>('SELECT COUNT(*)::INTEGER AS n FROM live_sessions WHERE key_id = $1', [keyId]);
      if (rows[0]!.n >= this.rate.liveSessions) return false;
      await client.query('INSERT INTO live_sessions (id, key_id, instance_id) VALUES ($1, $2, $3)', [id, keyId, this.instanceId]);
      return true;
    });
    if (!taken) {
      throw new ServiceError(429, `too many live sessions: at most ${this.rate.liveSessions} at once per API key; close one or reuse a session`, 1);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      void this.releaseLiveSession(id);
    };
  }

  private async releaseLiveSession(id: string): Promise<void> {
    try {
      await this.db.query('DELETE FROM live_sessions WHERE id = $1', [id]);
      this.unreleased.delete(id);
    } catch {
      this.unreleased.add(id);
    }
  }

  private async heartbeat(): Promise<void> {
    try {
      const { rowCount } = await this.db.query('UPDATE instances SET heartbeat_at = now() WHERE id = $1', [this.instanceId], 'heartbeat');
      // Swept after a long stall: its holds were returned, so their requests will not be billed; carry on.
      if (rowCount === 0) await this.db.query('INSERT INTO instances (id) VALUES ($1) ON CONFLICT DO NOTHING', [this.instanceId]);
      for (const id of this.unreleased) await this.releaseLiveSession(id);
      await this.options.retry?.();
    } catch (error) {
      this.options.log?.({ err: error }, 'database unreachable');
    }
  }

  /**
   * Returns the holds of instances whose lease ran out (or that are gone) to their balances and drops their
   * live-session slots; the count of holds. Safe to run on every instance at once: a hold is deleted once.
   */
  async sweep(): Promise<number> {
    const released = await this.db.transaction(async (client) => {
      const lease = `${this.settings.leaseMs} milliseconds`;
      const count = await refundHolds(
        client,
        `DELETE FROM holds WHERE instance_id NOT IN (SELECT id FROM instances WHERE heartbeat_at > now() - $1::INTERVAL)
         RETURNING user_id, held_micros`,
        [lease],
      );
      await client.query('DELETE FROM instances WHERE heartbeat_at <= now() - $1::INTERVAL', [lease]);
      return count;
    });
    if (released > 0) this.options.log?.({ releasedHolds: released }, 'returned the credit holds of instances that stopped');
    return released;
  }

  /**
   * Runs `work` every `everyMs`, one run at a time: the next run is timed from the end of the last, so a slow
   * database never has two heartbeats (or sweeps) of this instance waiting on it.
   */
  private repeat(work: () => Promise<unknown>, everyMs: number): void {
    const schedule = () => {
      if (this.closed) return;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void work().finally(schedule);
      }, everyMs).unref();
      this.timers.add(timer);
    };
    schedule();
  }

  /** Asks the listener's connection a question; one that does not answer in time is dropped and reopened. */
  private async checkListener(): Promise<void> {
    const client = this.listener;
    if (!client || !this.listening) return;
    try {
      await client.query('SELECT 1');
    } catch {
      if (this.listener !== client) return;
      this.options.log?.({}, 'the change listener stopped answering; reconnecting');
      // A half-open socket never ends by itself: destroy it, which ends the client and starts the reconnect.
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      client.emit('error', new Error('the change listener stopped answering'));
    }
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({
      connectionString: this.db.url,
      connectionTimeoutMillis: 2_000,
      query_timeout: this.settings.listenCheckTimeoutMs,
      keepAlive: true,
    });
    this.listener = client;
    const retry = () => {
      if (this.listener !== client) return;
      this.listening = false;
      this.listener = undefined;
      client.end().catch(() => {});
      if (!this.closed) setTimeout(() => void this.listen(), defaults.listenRetryMs).unref();
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (message) => {
      if (message.channel !== changesChannel || !message.payload) return;
      for (const listener of this.listeners) listener(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${changesChannel}`);
      this.listening = true;
      // Changes made while not listening were missed: listeners re-check everything they hold.
      for (const listener of this.listeners) listener('*');
    } catch {
      retry();
    }
  }

  /** Stops the heartbeat and listener and leaves the fleet (its remaining holds are returned by the next sweep). */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const listener = this.listener;
    this.listener = undefined;
    this.listening = false;
    await listener?.end().catch(() => {});
    await this.redis?.quit().catch(() => {});
    await this.db.query('DELETE FROM instances WHERE id = $1', [this.instanceId]).catch(() => {});
  }
}
