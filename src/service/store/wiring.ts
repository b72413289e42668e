import type { FastifyPluginAsync } from 'fastify';
import type { AccountGate, VoiceResolver } from '../accounts.js';
import { createModelAudioTools, type ModelAudioTools, type ModelEngines } from '../routes/models-audio.js';
import type { ModelUploadLimits } from '../routes/models-form.js';
import { modelRoutes } from '../routes/models.js';
import { walletRoutes } from '../routes/wallet.js';
import { StoreAccountGate, type StoreAccountGateOptions } from './account-gate.js';
import type { DatabaseOptions } from './database.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { FleetOptions } from './pg-fleet.js';
import { openPgStores, type PgStores } from './pg-stores.js';
import { ensureDevKey, openSqliteStores, type SqliteStores } from './sqlite-stores.js';
import { StoreVoiceResolver } from './voice-resolver.js';

/** The stores of one machine (SQLite in the data directory) or of a fleet (PostgreSQL). */
export type Stores = SqliteStores | PgStores;

export interface AccountServicesOptions extends StoreAccountGateOptions, DatabaseOptions {
  /** A postgres:// URL: accounts, keys, credit, limits and voice models shared by every instance on it. Default: SQLite in the data directory. */
  database?: string;
  /** Heartbeat and lease of this instance in a PostgreSQL fleet. */
  fleet?: Omit<FleetOptions, 'rateLimit'>;
  /** `shoal serve --dev-key`: this key (and a dev user with starting credit) is created if absent. */
  devKey?: string;
  /** Starting credit of the dev user, in credits. */
  devCredit?: number;
  /** Engines for model creation (ASR of untranscribed voices, generated samples); default: the server's. */
  engines?: ModelEngines;
  /** Replaces the audio tools built from `engines` (tests). */
  tools?: ModelAudioTools;
  uploadLimits?: Partial<ModelUploadLimits>;
}

export interface AccountServices<S extends Stores = Stores> {
  stores: S;
  accounts: AccountGate & StoreAccountGate;
  voices: VoiceResolver;
  /** The keys of idempotent POSTs (the server's `idempotency` option). */
  idempotency: IdempotencyStore;
  /** The /model and /wallet routes, to register behind the auth gate (an `extraRoutes` entry of the server). */
  routes: FastifyPluginAsync<{ context?: { engines: ModelEngines } }>;
  /** For /readyz: false while the database is unreachable. */
  ready(): boolean;
  close(): Promise<void>;
}

/** Opens the stores of `options.database` (PostgreSQL) or of the data directory (SQLite). */
export async function openStores(dataDir: string, options: AccountServicesOptions): Promise<Stores> {
  const devKey = options.devKey;
  const setup = devKey ? async (stores: Stores) => void (await ensureDevKey(stores.accounts, devKey, { credit: options.devCredit })) : undefined;
  if (options.database) {
    return openPgStores(options.database, { fleet: { ...options.fleet, rateLimit: options.rateLimit }, setup });
  }
  const stores = await openSqliteStores(dataDir, { synchronous: options.synchronous });
  await setup?.(stores);
  return stores;
}

/** Everything the accounts add to the server, over the stores of `options.database` or of the data directory. */
export async function openAccountServices(dataDir: string, options: AccountServicesOptions & { database?: undefined }): Promise<AccountServices<SqliteStores>>;
export async function openAccountServices(dataDir: string, options: AccountServicesOptions): Promise<AccountServices>;
export async function openAccountServices(dataDir: string, options: AccountServicesOptions): Promise<AccountServices> {
  const stores = await openStores(dataDir, options);
  const fleet = stores.kind === 'postgres' ? stores.fleet : undefined;
  const accounts = new StoreAccountGate(stores.accounts, {
    ...options,
    ...(fleet ? { keyLimits: fleet, onChange: (listener: () => void) => fleet.onChange(listener) } : {}),
  });
  const voices = new StoreVoiceResolver(stores.models);
  const getUser = (id: string) => stores.accounts.getUser(id);
  const routes: AccountServices['routes'] = async (app, pluginOptions) => {
    const engines = options.engines ?? pluginOptions.context?.engines;
    if (!options.tools && !engines) throw new RangeError('the model routes need engines: pass `engines` or register them as extraRoutes');
    const tools = options.tools ?? createModelAudioTools(engines!);
    await app.register(modelRoutes, { store: stores.models, getUser, tools, limits: options.uploadLimits });
    await app.register(walletRoutes, { getUser });
  };
  return { stores, accounts, voices, idempotency: stores.idempotency, routes, ready: () => stores.ready(), close: async () => stores.close() };
}
