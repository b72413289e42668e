/** Instances of the speech service on one throwaway PostgreSQL, for the fleet tests. */
import { connect, createServer } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BuiltinVoices, createSpeechService, type LiveOptions, type SpeechService } from '../../src/service/index.js';
import { hashKeySecret, openAccountServices, type AccountServices, type FleetOptions, type PgStores, type RateLimitOptions } from '../../src/service/store/index.js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startPgCluster, type PgCluster } from './pg-cluster.js';
import { testEngines, type TestUser } from './service-store-harness.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections on the port. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => (socket.end(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

export interface Instance {
  url: string;
  services: AccountServices;
  service: SpeechService;
  close(): Promise<void>;
}

/** Instances started by `startInstance` and not closed yet (the tests close them after each test). */
export const open: Instance[] = [];

export async function closeInstances(): Promise<void> {
  await Promise.all(open.splice(0).map((instance) => instance.close()));
}

export async function startInstance(
  database: string,
  options: {
    rateLimit?: Partial<RateLimitOptions>;
    live?: Partial<LiveOptions>;
    leaseMs?: number;
    redisUrl?: string;
    fleet?: Partial<FleetOptions>;
    engines?: typeof testEngines;
  } = {},
): Promise<Instance> {
  const dataDir = await mkdtemp(join(tmpdir(), 'shoal-fleet-'));
  const services = await openAccountServices(dataDir, {
    database,
    engines: testEngines,
    rateLimit: options.rateLimit ?? { requestsPerSecond: 1000, burst: 1000 },
    fleet: { heartbeatMs: 200, sweepEveryMs: 250, leaseMs: options.leaseMs, redisUrl: options.redisUrl, ...options.fleet },
  });
  const service = await createSpeechService({
    accounts: services.accounts,
    storeReady: services.ready,
    idempotency: services.idempotency,
    voices: new BuiltinVoices(services.voices),
    extraRoutes: [services.routes],
    engines: options.engines ?? testEngines,
    logLevel: 'silent',
    limits: { ttsStreams: 20 },
    live: options.live ?? {},
    warmUp: false,
  });
  const url = await service.listen({ host: '127.0.0.1', port: 0 });
  const instance = {
    url,
    services,
    service,
    async close() {
      await service.close();
      await services.close();
    },
  };
  open.push(instance);
  return instance;
}

/**
 * The test file's throwaway PostgreSQL: started before its tests and removed after them; the instances a test
 * started are closed after it.
 */
export function fleetCluster(): PgCluster {
  let cluster: PgCluster | undefined;
  beforeAll(async () => {
    cluster = await startPgCluster();
  }, 60_000);
  afterAll(async () => cluster?.close());
  afterEach(closeInstances);
  const started = () => {
    if (!cluster) throw new Error('the PostgreSQL cluster is not started yet: use it inside a test');
    return cluster;
  };
  return {
    get url() {
      return started().url;
    },
    createDatabase: () => started().createDatabase(),
    stop: () => started().stop(),
    start: () => started().start(),
    close: () => started().close(),
  };
}

export async function userWith(instance: Instance, id: string, creditMicros: number): Promise<TestUser> {
  await instance.services.stores.accounts.createUser({ id, creditMicros });
  await instance.services.stores.accounts.createKey({ userId: id, name: 'k', secretHash: hashKeySecret(`sk_${id}`) });
  return { id, key: `sk_${id}` };
}

export const pgOf = (instance: Instance) => instance.services.stores as PgStores;
export const balance = async (instance: Instance, id: string) => (await instance.services.stores.accounts.getUser(id))!.creditMicros;
export const openHolds = async (instance: Instance) => (await pgOf(instance).db.query<{ n: number }>('SELECT COUNT(*)::INTEGER AS n FROM holds')).rows[0]!.n;

export async function until(test: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test().valueOf())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
