import type BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { requireOptional } from '../../optional/index.js';
import { migrations, type Migration } from './migrations.js';

export type SqliteDatabase = BetterSqlite3.Database;

export const defaults = {
  /** File name of the database inside the data directory. */
  fileName: 'shoal.sqlite',
  /** How long a writer waits for another process's lock before failing, in ms. */
  busyTimeoutMs: 5_000,
  /**
   * NORMAL (with WAL): a commit survives the process being killed at any point, and the database is never
   * corrupted; a power cut may lose the last commits (an unbilled request, never a double debit). FULL also
   * survives power cuts but costs an fsync per commit (~3.5 ms measured here, on the event loop).
   */
  synchronous: 'NORMAL' as 'NORMAL' | 'FULL',
};

/** The database file exists but SQLite cannot read it; it is left exactly as it was. */
export class DatabaseUnreadableError extends Error {
  constructor(
    readonly path: string,
    cause: Error,
  ) {
    super(
      `the database ${path} is damaged or is not a Shoal database (${cause.message}); it was left untouched: ` +
        'restore it from a backup, or move it aside to start with an empty one',
    );
    this.name = 'DatabaseUnreadableError';
  }
}

const unreadableCodes = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

export interface DatabaseOptions {
  synchronous?: 'NORMAL' | 'FULL';
}

/** Opens (creating if needed) the service database in `dataDir`, in WAL mode, with every migration applied. */
export function openDatabase(
  dataDir: string,
  options: DatabaseOptions = {},
  list: readonly Migration[] = migrations,
  fileName = defaults.fileName,
): SqliteDatabase {
  mkdirSync(dataDir, { recursive: true });
  const synchronous = options.synchronous ?? defaults.synchronous;
  if (synchronous !== 'NORMAL' && synchronous !== 'FULL') throw new RangeError(`synchronous must be NORMAL or FULL, got ${synchronous}`);
  const Database = requireOptional<typeof BetterSqlite3>('better-sqlite3');
  const path = join(dataDir, fileName);
  const db = new Database(path, { timeout: defaults.busyTimeoutMs });
  try {
    // Read before anything writes (journal mode, migrations), so a damaged file is refused untouched.
    db.pragma('schema_version');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.pragma('foreign_keys = ON');
    migrate(db, list);
  } catch (error) {
    db.close();
    if (unreadableCodes.has(String((error as { code?: unknown }).code))) throw new DatabaseUnreadableError(path, error as Error);
    throw error;
  }
  return db;
}

export function migrate(db: SqliteDatabase, list: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const isApplied = db.prepare('SELECT 1 FROM migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of [...list].sort((a, b) => a.version - b.version)) {
    // Checked inside the write transaction, so two processes opening one directory apply it once.
    db.transaction(() => {
      if (isApplied.get(migration.version)) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    }).immediate();
  }
}
