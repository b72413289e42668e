/** Two `shoal serve` processes on one throwaway PostgreSQL, with the stores to make users and read their wallets. */
import { expect } from 'vitest';
import { hashKeySecret, openPgStores, type PgStores } from '../../src/service/store/index.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';
import { startServeProcess, type ServeProcess } from './serve-process.js';

export interface ServeFleet {
  instances: ServeProcess[];
  stores: PgStores;
  /** A user with `creditMicros` and the key `sk_<id>`. */
  userWith(id: string, creditMicros: number): Promise<string>;
  balance(id: string): Promise<number>;
  /** Waits (up to 10 s) until no credit is held. */
  holdsReturned(): Promise<void>;
  close(): Promise<void>;
}

export async function startServeFleet(args: string[] = []): Promise<ServeFleet> {
  const cluster: PgCluster = await startPgCluster();
  const database = await cluster.createDatabase();
  const instances = await Promise.all([0, 1].map(() => startServeProcess({ args: ['--database', database, ...args] })));
  const stores = await openPgStores(database, { serve: false });
  return {
    instances,
    stores,
    async userWith(id, creditMicros) {
      await stores.accounts.createUser({ id, creditMicros });
      await stores.accounts.createKey({ userId: id, name: 'k', secretHash: hashKeySecret(`sk_${id}`) });
      return `sk_${id}`;
    },
    balance: async (id) => (await stores.accounts.getUser(id))!.creditMicros,
    async holdsReturned() {
      await expect.poll(async () => (await stores.db.query<{ n: number }>('SELECT COUNT(*)::INTEGER AS n FROM holds')).rows[0]!.n, { timeout: 10_000 }).toBe(0);
    },
    async close() {
      await stores.close();
      await Promise.all(instances.map((instance) => instance.stop()));
      await cluster.close();
    },
  };
}
