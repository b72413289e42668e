import type { SqliteDatabase } from './database.js';
import type { PgDatabase } from './pg-database.js';

/** A response kept for replay: its status, content type and body (`null` when it was too large to keep). */
export interface StoredResponse {
  status: number;
  contentType: string;
  body: Uint8Array | null;
}

/** What a request carrying an `Idempotency-Key` finds: the key is its own now, in use, used with other input, or done. */
export type IdempotentClaim =
  | { state: 'claimed' }
  | { state: 'running' }
  | { state: 'mismatch' }
  | { state: 'done'; response: StoredResponse };

export const idempotencyDefaults = {
  /** A key and its response are kept this long after the first request, in ms. */
  keepMs: 24 * 60 * 60 * 1000,
  /** A claim whose request has not finished after this long (its process died) may be taken by a retry, in ms. */
  staleClaimMs: 5 * 60 * 1000,
};

/**
 * The keys of idempotent POSTs, shared by every instance on one database: a retry with the same key is answered
 * with the first request's response (served once, billed once), whichever instance it reaches.
 */
export interface IdempotencyStore {
  /** Claims `key` of `scope` (a user) for a request whose input has this fingerprint. */
  claim(scope: string, key: string, fingerprint: string): Promise<IdempotentClaim>;
  /** Keeps the response of a claimed request. */
  complete(scope: string, key: string, response: StoredResponse): Promise<void>;
  /** Gives the key back (the request failed in a way a retry may mend: 5xx, 429, an aborted client). */
  release(scope: string, key: string): Promise<void>;
}

interface Row {
  fingerprint: string;
  state: string;
  status: number | null;
  content_type: string | null;
  body: Uint8Array | null;
  claimed_at: string;
}

function outcome(row: Row, fingerprint: string, staleBefore: string): IdempotentClaim | undefined {
  if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
  if (row.state === 'done') return { state: 'done', response: { status: row.status!, contentType: row.content_type ?? '', body: row.body ? new Uint8Array(row.body) : null } };
  return row.claimed_at < staleBefore ? undefined : { state: 'running' };
}

const iso = (ms: number) => new Date(ms).toISOString();

export class SqliteIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly settings = idempotencyDefaults,
  ) {}

  async claim(scope: string, key: string, fingerprint: string): Promise<IdempotentClaim> {
    const now = Date.now();
    return this.db.transaction((): IdempotentClaim => {
      this.db.prepare('DELETE FROM idempotency WHERE created_at < ?').run(iso(now - this.settings.keepMs));
      const row = this.db.prepare('SELECT fingerprint, state, status, content_type, body, claimed_at FROM idempotency WHERE scope = ? AND key = ?').get(scope, key) as Row | undefined;
      const found = row && outcome(row, fingerprint, iso(now - this.settings.staleClaimMs));
      if (found) return found;
      this.db
        .prepare(
          `INSERT INTO idempotency (scope, key, fingerprint, state, created_at, claimed_at) VALUES (?, ?, ?, 'running', ?, ?)
           ON CONFLICT (scope, key) DO UPDATE SET state = 'running', claimed_at = excluded.claimed_at`,
        )
        .run(scope, key, fingerprint, iso(now), iso(now));
      return { state: 'claimed' };
    }).immediate();
  }

  async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    this.db
      .prepare(`UPDATE idempotency SET state = 'done', status = ?, content_type = ?, body = ? WHERE scope = ? AND key = ?`)
      .run(response.status, response.contentType, response.body ? Buffer.from(response.body) : null, scope, key);
  }

  async release(scope: string, key: string): Promise<void> {
    this.db.prepare(`DELETE FROM idempotency WHERE scope = ? AND key = ? AND state = 'running'`).run(scope, key);
  }
}

export class PgIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: PgDatabase,
    private readonly settings = idempotencyDefaults,
  ) {}

  async claim(scope: string, key: string, fingerprint: string): Promise<IdempotentClaim> {
    const now = Date.now();
    return this.db.transaction(async (client) => {
      await client.query('DELETE FROM idempotency WHERE created_at < $1', [iso(now - this.settings.keepMs)]);
      const inserted = await client.query(
        `INSERT INTO idempotency (scope, key, fingerprint, state, created_at, claimed_at) VALUES ($1, $2, $3, 'running', $4, $4)
         ON CONFLICT (scope, key) DO NOTHING`,
        [scope, key, fingerprint, iso(now)],
      );
      if (inserted.rowCount === 1) return { state: 'claimed' } as const;
      // The row exists: lock it, so two instances cannot both take over a stale claim.
      const { rows } = await client.query<Row>(
        'SELECT fingerprint, state, status, content_type, body, claimed_at FROM idempotency WHERE scope = $1 AND key = $2 FOR UPDATE',
        [scope, key],
      );
      const found = rows[0] && outcome(rows[0], fingerprint, iso(now - this.settings.staleClaimMs));
      if (found) return found;
      await client.query(`UPDATE idempotency SET state = 'running', claimed_at = $3 WHERE scope = $1 AND key = $2`, [scope, key, iso(now)]);
      return { state: 'claimed' } as const;
    });
  }

  async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    await this.db.query(`UPDATE idempotency SET state = 'done', status = $3, content_type = $4, body = $5 WHERE scope = $1 AND key = $2`, [
      scope,
      key,
      response.status,
      response.contentType,
      response.body ? Buffer.from(response.body) : null,
    ]);
  }

  async release(scope: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency WHERE scope = $1 AND key = $2 AND state = 'running'`, [scope, key]);
  }
}
