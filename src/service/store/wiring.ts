import type { FastifyPluginAsync } from 'fastify';
import type { AccountGate, VoiceResolver } from '../accounts.js';
import { createModelAudioTools, type ModelAudioTools, type ModelEngines } from '../routes/models-audio.js';
import type { ModelUploadLimits } from '../routes/models-form.js';
import { modelRoutes } from '../routes/models.js';
import { walletRoutes } from '../routes/wallet.js';
import { StoreAccountGate, type StoreAccountGateOptions } from './account-gate.js';
import type { DatabaseOptions } from './database.js';
import { ensureDevKey, openSqliteStores, type SqliteStores } from './sqlite-stores.js';
import { StoreVoiceResolver } from './voice-resolver.js';

export interface AccountServicesOptions extends StoreAccountGateOptions, DatabaseOptions {
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

export interface AccountServices {
  stores: SqliteStores;
  accounts: AccountGate & StoreAccountGate;
  voices: VoiceResolver;
  /** The /model and /wallet routes, to register behind the auth gate (an `extraRoutes` entry of the server). */
  routes: FastifyPluginAsync<{ context?: { engines: ModelEngines } }>;
  close(): void;
}

/** Everything part 2 adds to the server, over the SQLite stores of one data directory. */
export async function openAccountServices(dataDir: string, options: AccountServicesOptions): Promise<AccountServices> {
  const stores = await openSqliteStores(dataDir, { synchronous: options.synchronous });
  if (options.devKey) await ensureDevKey(stores.accounts, options.devKey, { credit: options.devCredit });
  const accounts = new StoreAccountGate(stores.accounts, options);
  const voices = new StoreVoiceResolver(stores.models);
  const getUser = (id: string) => stores.accounts.getUser(id);
  const routes: AccountServices['routes'] = async (app, pluginOptions) => {
    const engines = options.engines ?? pluginOptions.context?.engines;
    if (!options.tools && !engines) throw new RangeError('the model routes need engines: pass `engines` or register them as extraRoutes');
    const tools = options.tools ?? createModelAudioTools(engines!);
    await app.register(modelRoutes, { store: stores.models, getUser, tools, limits: options.uploadLimits });
    await app.register(walletRoutes, { getUser });
  };
  return { stores, accounts, voices, routes, close: () => stores.close() };
}
