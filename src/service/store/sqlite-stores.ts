import { join } from 'node:path';
import { openDatabase, type DatabaseOptions, type SqliteDatabase } from './database.js';
import { FileArea } from './file-area.js';
import { creditsToMicros, hashKeySecret } from './ids.js';
import { SqliteIdempotencyStore } from './idempotency-store.js';
import { SqliteAccountStore } from './sqlite-account-store.js';
import { referencedFiles, SqliteVoiceModelStore } from './sqlite-voice-model-store.js';
import type { AccountStore, ApiKeyRecord, VoiceModelStore } from './types.js';

export const defaults = {
  /** Credit a dev user starts with (credits, not micro-credits). */
  devCredit: 100,
  devUserId: 'dev',
  /** How often the query planner's statistics are refreshed (`PRAGMA optimize`), in ms. */
  optimizeEveryMs: 60 * 60 * 1000,
};

export interface SqliteStores {
  kind: 'sqlite';
  db: SqliteDatabase;
  accounts: SqliteAccountStore;
  models: SqliteVoiceModelStore;
  idempotency: SqliteIdempotencyStore;
  files: FileArea;
  /** Files a crash left behind and startup removed. */
  sweptFiles: number;
  /** Credit holds a stopped process left open, returned to their balances at startup. */
  releasedHolds: number;
  /** Refreshes the query planner's statistics where they are stale (also done at open, hourly and at close). */
  optimize(): void;
  /** Always true: the database is a file of this process. */
  ready(): boolean;
  close(): void;
}

/**
 * Opens the database and file area of a data directory and cleans up what an earlier crash left behind.
 * Only the process that serves requests may sweep: an admin command running beside a live server opens
 * with `sweep: false`, or it would take files of uploads that are not committed yet, and release the
 * credit holds of requests in progress.
 */
export async function openSqliteStores(
  dataDir: string,
  options: DatabaseOptions & { sweep?: boolean } = {},
): Promise<SqliteStores> {
  const db = openDatabase(dataDir, options);
  const files = new FileArea(join(dataDir, 'files'));
  await files.init();
  const accounts = new SqliteAccountStore(db);
  const models = new SqliteVoiceModelStore(db, files);
  const { removed } =
    options.sweep === false
      ? { removed: 0 }
      : await files.sweep((modelId) => {
          const model = models.byId(modelId);
          return model ? referencedFiles(model) : null;
        });
  const releasedHolds = options.sweep === false ? 0 : await accounts.releaseAllHolds();
  const optimize = () => void db.pragma('optimize=0x10002');
  optimize();
  const timer = setInterval(optimize, defaults.optimizeEveryMs).unref();
  const close = () => {
    clearInterval(timer);
    if (!db.open) return;
    optimize();
    db.close();
  };
  return { kind: 'sqlite', db, accounts, models, idempotency: new SqliteIdempotencyStore(db), files, sweptFiles: removed, releasedHolds, optimize, ready: () => true, close };
}

/** Creates the user and key `secret` if no key with that secret exists; returns the key either way. */
export async function ensureDevKey(
  accounts: AccountStore,
  secret: string,
  options: { credit?: number; userId?: string } = {},
): Promise<ApiKeyRecord> {
  const hash = hashKeySecret(secret);
  const existing = await accounts.findKeyByHash(hash);
  if (existing) return existing;
  const userId = options.userId ?? defaults.devUserId;
  const key = { name: 'dev key (shoal serve --dev-key)', secretHash: hash };
  try {
    if (await accounts.getUser(userId)) return await accounts.createKey({ ...key, userId });
    const created = await accounts.createUserWithKey(
      { id: userId, nickname: 'Developer', creditMicros: creditsToMicros(options.credit ?? defaults.devCredit), freeCredit: true },
      key,
    );
    return created.key;
  } catch (error) {
    // Another process created it first (the key's hash is unique): that one is the dev key.
    const created = await accounts.findKeyByHash(hash);
    if (created) return created;
    throw error;
  }
}

export type { AccountStore, VoiceModelStore };
