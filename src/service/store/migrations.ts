/** Numbered schema migrations; each runs once, inside a transaction, in order. Never edit a released one. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'users, api keys and the credit ledger',
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        nickname TEXT NOT NULL,
        avatar TEXT NOT NULL DEFAULT '',
        credit_micros INTEGER NOT NULL DEFAULT 0,
        granted_micros INTEGER NOT NULL DEFAULT 0,
        free_credit INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        name TEXT NOT NULL,
        secret_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        expires_at TEXT,
        revoked_at TEXT
      );
      CREATE TABLE ledger (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL REFERENCES users(id),
        request_id TEXT UNIQUE,
        amount_micros INTEGER NOT NULL,
        description TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX ledger_user ON ledger(user_id);
    `,
  },
  {
    version: 2,
    name: 'voice models, their tags and languages',
    sql: `
      CREATE TABLE models (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL REFERENCES users(id),
        type TEXT NOT NULL,
        title TEXT NOT NULL,
        title_language TEXT NOT NULL,
        description TEXT NOT NULL,
        cover_file TEXT NOT NULL,
        train_mode TEXT NOT NULL,
        state TEXT NOT NULL,
        visibility TEXT NOT NULL,
        tags TEXT NOT NULL,
        languages TEXT NOT NULL,
        like_count INTEGER NOT NULL DEFAULT 0,
        mark_count INTEGER NOT NULL DEFAULT 0,
        shared_count INTEGER NOT NULL DEFAULT 0,
        task_count INTEGER NOT NULL DEFAULT 0,
        score INTEGER NOT NULL DEFAULT 0,
        lock_visibility INTEGER NOT NULL DEFAULT 0,
        dmca_taken_down INTEGER NOT NULL DEFAULT 0,
        default_text TEXT NOT NULL,
        source TEXT,
        samples TEXT NOT NULL,
        generated TEXT NOT NULL,
        voice TEXT NOT NULL,
        quality_created_at TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX models_listed_score ON models(visibility, score DESC, created_at DESC);
      CREATE INDEX models_listed_tasks ON models(visibility, task_count DESC, created_at DESC);
      CREATE INDEX models_listed_created ON models(visibility, created_at DESC);
      CREATE INDEX models_owner ON models(owner_id, created_at DESC);
      CREATE TABLE model_tags (
        model_id TEXT NOT NULL REFERENCES models(id) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        PRIMARY KEY (tag, model_id)
      ) WITHOUT ROWID;
      CREATE INDEX model_tags_model ON model_tags(model_id);
      CREATE TABLE model_languages (
        model_id TEXT NOT NULL REFERENCES models(id) ON DELETE CASCADE,
        language TEXT NOT NULL,
        PRIMARY KEY (language, model_id)
      ) WITHOUT ROWID;
      CREATE INDEX model_languages_model ON model_languages(model_id);
    `,
  },
  {
    version: 3,
    name: 'listing indexes that cover the sort and the id, for public and per-author lists',
    sql: `
      DROP INDEX models_listed_score;
      DROP INDEX models_listed_tasks;
      DROP INDEX models_listed_created;
      DROP INDEX models_owner;
      CREATE INDEX models_listed_score ON models(visibility, score DESC, created_at DESC, id DESC);
      CREATE INDEX models_listed_tasks ON models(visibility, task_count DESC, created_at DESC, id DESC);
      CREATE INDEX models_listed_created ON models(visibility, created_at DESC, id DESC);
      CREATE INDEX models_owner_score ON models(owner_id, score DESC, created_at DESC, id DESC);
      CREATE INDEX models_owner_tasks ON models(owner_id, task_count DESC, created_at DESC, id DESC);
      CREATE INDEX models_owner_created ON models(owner_id, created_at DESC, id DESC);
      CREATE INDEX models_title ON models(visibility, title);
    `,
  },
  {
    version: 4,
    name: 'covering index for counting tag and language matches by visibility',
    sql: `CREATE INDEX models_id_visibility ON models(id, visibility, owner_id);`,
  },
  {
    version: 5,
    name: 'credit holds: work reserves its price before it starts and settles what it delivered',
    sql: `
      CREATE TABLE holds (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        held_micros INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX holds_user ON holds(user_id);
    `,
  },
  {
    version: 6,
    name: 'idempotency keys: a retried POST is answered with its first response',
    sql: `
      CREATE TABLE idempotency (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        state TEXT NOT NULL,
        status INTEGER,
        content_type TEXT,
        body BLOB,
        created_at TEXT NOT NULL,
        claimed_at TEXT NOT NULL,
        PRIMARY KEY (scope, key)
      );
      CREATE INDEX idempotency_created ON idempotency(created_at);
    `,
  },
];
