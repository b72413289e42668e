/** The idempotency store's claims, the same on SQLite and on PostgreSQL: new, running, mismatch, done, stale, expired. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  idempotencyDefaults,
  openPgStores,
  openSqliteStores,
  PgIdempotencyStore,
  SqliteIdempotencyStore,
  type IdempotencyStore,
} from '../../src/service/store/index.js';
import { fleetCluster } from '../support/fleet-harness.js';

type Settings = typeof idempotencyDefaults;
interface Dialect {
  store(settings?: Settings): IdempotencyStore;
  close(): Promise<void>;
}

// The file's throwaway PostgreSQL, started before its tests and removed after them.
const cluster = fleetCluster();

const dialects: Record<string, () => Promise<Dialect>> = {
  sqlite: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shoal-idempotency-'));
    const stores = await openSqliteStores(dir, { sweep: false });
    return {
      store: (settings = idempotencyDefaults) => new SqliteIdempotencyStore(stores.db, settings),
      close: async () => (stores.close(), await rm(dir, { recursive: true, force: true })),
    };
  },
  postgres: async () => {
    const stores = await openPgStores(await cluster.createDatabase(), { serve: false });
    return { store: (settings = idempotencyDefaults) => new PgIdempotencyStore(stores.db, settings), close: () => stores.close() };
  },
};

describe.each(Object.keys(dialects))('idempotency store on %s', (name) => {
  let dialect: Dialect;
  beforeAll(async () => {
    dialect = await dialects[name]!();
  }, 30_000);
  afterAll(async () => dialect?.close());

  it('claims a new key once: a retry finds it running, other input a mismatch, and after completion the response', async () => {
    const store = dialect.store();
    expect(await store.claim('alice', 'k1', 'fp')).toEqual({ state: 'claimed' });
    expect(await store.claim('alice', 'k1', 'fp')).toEqual({ state: 'running' });
    expect(await store.claim('alice', 'k1', 'other')).toEqual({ state: 'mismatch' });
    expect(await store.claim('bob', 'k1', 'other')).toEqual({ state: 'claimed' });
    await store.complete('alice', 'k1', { status: 200, contentType: 'audio/wav', body: new Uint8Array([1, 2, 3]) });
    await store.release('alice', 'k1');
    expect(await store.claim('alice', 'k1', 'fp')).toEqual({ state: 'done', response: { status: 200, contentType: 'audio/wav', body: new Uint8Array([1, 2, 3]) } });
    await store.complete('bob', 'k1', { status: 201, contentType: 'application/json', body: null });
    expect(await store.claim('bob', 'k1', 'other')).toEqual({ state: 'done', response: { status: 201, contentType: 'application/json', body: null } });
  });

  it('gives a released key to the next claim, even with other input', async () => {
    const store = dialect.store();
    expect(await store.claim('alice', 'k2', 'fp')).toEqual({ state: 'claimed' });
    await store.release('alice', 'k2');
    expect(await store.claim('alice', 'k2', 'other')).toEqual({ state: 'claimed' });
    expect(await store.claim('alice', 'k2', 'other')).toEqual({ state: 'running' });
  });

  it('lets a retry take over a stale claim (same input only), and forgets keys older than it keeps them', async () => {
    const store = dialect.store();
    expect(await store.claim('alice', 'k3', 'fp')).toEqual({ state: 'claimed' });
    const later = dialect.store({ ...idempotencyDefaults, staleClaimMs: -60_000 });
    expect(await later.claim('alice', 'k3', 'other')).toEqual({ state: 'mismatch' });
    expect(await later.claim('alice', 'k3', 'fp')).toEqual({ state: 'claimed' });
    expect(await store.claim('alice', 'k3', 'fp')).toEqual({ state: 'running' });
    await store.complete('alice', 'k3', { status: 200, contentType: 'text/plain', body: new Uint8Array([9]) });
    expect(await later.claim('alice', 'k3', 'fp')).toMatchObject({ state: 'done' });
    const muchLater = dialect.store({ ...idempotencyDefaults, keepMs: -60_000 });
    expect(await muchLater.claim('alice', 'k3', 'other')).toEqual({ state: 'claimed' });
  });
});
