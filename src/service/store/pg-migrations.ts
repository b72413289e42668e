import type { Migration } from './migrations.js';

/**
 * The PostgreSQL schema: the SQLite tables in PostgreSQL's types, plus what a fleet shares: the running
 * instances (their heartbeats lease the credit holds and live sessions they own), model files as bytea and
 * the request-rate counters. Numbered on their own; never edit a released one.
 */
export const pgMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'users, api keys, the credit ledger, holds, voice models and their files, instances, live sessions, rate counters',
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        nickname TEXT NOT NULL,
        avatar TEXT NOT NULL DEFAULT '',
        credit_micros BIGINT NOT NULL DEFAULT 0 CHECK (credit_micros >= 0),
        granted_micros BIGINT NOT NULL DEFAULT 0,
        free_credit BOOLEAN NOT NULL DEFAULT FALSE,
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
        id BIGSERIAL PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        request_id TEXT UNIQUE,
        amount_micros BIGINT NOT NULL,
        description TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX ledger_user ON ledger(user_id);
      CREATE TABLE instances (
        id TEXT PRIMARY KEY,
        started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE holds (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        instance_id TEXT NOT NULL,
        held_micros BIGINT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX holds_user ON holds(user_id);
      CREATE INDEX holds_instance ON holds(instance_id);
      CREATE TABLE live_sessions (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        instance_id TEXT NOT NULL REFERENCES instances(id) ON DELETE CASCADE
      );
      CREATE INDEX live_sessions_key ON live_sessions(key_id);
      CREATE INDEX live_sessions_instance ON live_sessions(instance_id);
      -- Counters of the current rate window only: unlogged (no WAL write per request); a crash empties them, which is harmless.
      CREATE UNLOGGED TABLE rate_counters (
        key VARCHAR(255) PRIMARY KEY,
        points INTEGER NOT NULL DEFAULT 0,
        expire BIGINT
      );
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
      CREATE INDEX models_listed_score ON models(visibility, score DESC, created_at DESC, id DESC);
      CREATE INDEX models_listed_tasks ON models(visibility, task_count DESC, created_at DESC, id DESC);
      CREATE INDEX models_listed_created ON models(visibility, created_at DESC, id DESC);
      CREATE INDEX models_owner_score ON models(owner_id, score DESC, created_at DESC, id DESC);
      CREATE INDEX models_owner_tasks ON models(owner_id, task_count DESC, created_at DESC, id DESC);
      CREATE INDEX models_owner_created ON models(owner_id, created_at DESC, id DESC);
      CREATE TABLE model_tags (
        model_id TEXT NOT NULL REFERENCES models(id) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        PRIMARY KEY (tag, model_id)
      );
      CREATE INDEX model_tags_model ON model_tags(model_id);
      CREATE TABLE model_languages (
        model_id TEXT NOT NULL REFERENCES models(id) ON DELETE CASCADE,
        language TEXT NOT NULL,
        PRIMARY KEY (language, model_id)
      );
      CREATE INDEX model_languages_model ON model_languages(model_id);
      CREATE TABLE model_files (
        model_id TEXT NOT NULL REFERENCES models(id) ON DELETE CASCADE,
        file TEXT NOT NULL,
        bytes BYTEA NOT NULL,
        PRIMARY KEY (model_id, file)
      );
    `,
  },
  {
    version: 2,
    name: 'idempotency keys: a retried POST is answered with its first response, on any instance',
    sql: `
      CREATE TABLE idempotency (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        state TEXT NOT NULL,
        status INTEGER,
        content_type TEXT,
        body BYTEA,
        created_at TEXT NOT NULL,
        claimed_at TEXT NOT NULL,
        PRIMARY KEY (scope, key)
      );
      CREATE INDEX idempotency_created ON idempotency(created_at);
    `,
  },
];
