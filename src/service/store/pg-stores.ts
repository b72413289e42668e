import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pRetry from 'p-retry';
import { FileArea } from './file-area.js';
import { PgIdempotencyStore } from './idempotency-store.js';
import { PgAccountStore } from './pg-account-store.js';
import { isUnavailable, PgDatabase, StoreUnavailableError } from './pg-database.js';
import { PgFleet, type FleetOptions } from './pg-fleet.js';
import { PgVoiceModelStore } from './pg-voice-model-store.js';

export const defaults = {
  /** Attempts to reach the database at start (about 30 s in all) before giving up. */
  startRetries: 8,
};

export interface PgStores {
  kind: 'postgres';
  db: PgDatabase;
  accounts: PgAccountStore;
  models: PgVoiceModelStore;
  idempotency: PgIdempotencyStore;
  /** This instance's heartbeat, shared limits and change feed; absent for admin commands. */
  fleet?: PgFleet;
  /** Credit holds of stopped instances returned at start. */
  releasedHolds: number;
  /** False while the database is unreachable (/readyz). */
  ready(): boolean;
  close(): Promise<void>;
}

export interface PgStoresOptions {
  /** Join the fleet (heartbeat, leases, shared limits, change feed): the serving process. Admin commands pass false. */
  serve?: boolean;
  fleet?: FleetOptions;
  /** First-start work (the dev key) run under the migration lock, so instances starting at once do it once. */
  setup?: (stores: PgStores) => Promise<void>;
  poolSize?: number;
}

/** Whether `--database` names PostgreSQL. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Opens the PostgreSQL stores of a fleet: a pool, the migrations (under an advisory lock), and for a serving
 * process its membership of the fleet. Files being uploaded are staged in a private temp folder.
 */
export async function openPgStores(url: string, options: PgStoresOptions = {}): Promise<PgStores> {
  if (!isPostgresUrl(url)) throw new RangeError(`--database must be a postgres:// or postgresql:// URL, got ${JSON.stringify(url)}`);
  const db = new PgDatabase(url, { poolSize: options.poolSize, onError: (error) => options.fleet?.log?.({ err: error }, 'database connection lost') });
  const stagingRoot = await mkdtemp(join(tmpdir(), 'shoal-staging-'));
  const staging = new FileArea(stagingRoot);
  let fleet: PgFleet | undefined;
  try {
    await staging.init();
    const instanceId = `inst_${randomUUID()}`;
    const accounts = new PgAccountStore(db, instanceId);
    fleet = options.serve === false ? undefined : new PgFleet(db, instanceId, { ...options.fleet, retry: () => accounts.settlePending() });
    if (fleet) {
      const feed = fleet;
      feed.onChange((change) => accounts.forget(change));
      accounts.cacheKeys = () => feed.ready();
    }
    const stores: PgStores = {
      kind: 'postgres',
      db,
      accounts,
      models: new PgVoiceModelStore(db, staging),
      idempotency: new PgIdempotencyStore(db),
      fleet,
      releasedHolds: 0,
      ready: () => (fleet ? fleet.ready() : db.healthy),
      async close() {
        await fleet?.close();
        await db.close();
        await rm(stagingRoot, { recursive: true, force: true });
      },
    };
    // Instances often start together with their database (compose, a rolling restart): a serving one waits for it a little.
    await pRetry(() => db.migrate(undefined, options.setup && (() => options.setup!(stores))), {
      retries: options.serve === false ? 0 : defaults.startRetries,
      minTimeout: 500,
      maxTimeout: 5_000,
      shouldRetry: ({ error }) => isUnavailable(error) || error instanceof StoreUnavailableError,
      onFailedAttempt: ({ error, attemptNumber }) =>
        options.fleet?.log?.({ err: error, attempt: attemptNumber }, 'the database is not reachable yet; retrying'),
    });
    if (fleet) {
      await fleet.start();
      stores.releasedHolds = await fleet.sweep();
    }
    return stores;
  } catch (error) {
    await fleet?.close().catch(() => {});
    await db.close().catch(() => {});
    await rm(stagingRoot, { recursive: true, force: true });
    throw error;
  }
}
