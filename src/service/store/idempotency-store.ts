import type { SqliteDatabase } from './database.js';
import { positional, type PgDatabase } from './pg-database.js';

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

/** One statement with named parameters (`@name`), in the SQL both SQLite and PostgreSQL read. */
interface Statement {
  sql: string;
  params: Record<string, unknown>;
}

/** What a statement did: the rows it read, and how many it wrote. */
interface Outcome {
  rows: Row[];
  changes: number;
}

function outcome(row: Row, fingerprint: string, staleBefore: string): IdempotentClaim | undefined {
  if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
  if (row.state === 'done') return { state: 'done', response: { status: row.status!, contentType: row.content_type ?? '', body: row.body ? new Uint8Array(row.body) : null } };
  return row.claimed_at < staleBefore ? undefined : { state: 'running' };
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A claim's statements, run in one transaction by the store's dialect: a new key is inserted; an existing
 * row is read under `lock` (so two instances cannot both take over a stale claim) and answers, or is taken over.
 */
function* claimStatements(
  scope: string,
  key: string,
  fingerprint: string,
  settings: typeof idempotencyDefaults,
  lock: string,
): Generator<Statement, IdempotentClaim, Outcome> {
  const now = Date.now();
  const at = iso(now);
  yield { sql: 'DELETE FROM idempotency WHERE created_at < @expired', params: { expired: iso(now - settings.keepMs) } };
  const inserted = yield {
    sql: `INSERT INTO idempotency (scope, key, fingerprint, state, created_at, claimed_at) VALUES (@scope, @key, @fingerprint, 'running', @at, @at)
          ON CONFLICT (scope, key) DO NOTHING`,
    params: { scope, key, fingerprint, at },
  };
  if (inserted.changes === 1) return { state: 'claimed' };
  const { rows } = yield {
    sql: `SELECT fingerprint, state, status, content_type, body, claimed_at FROM idempotency WHERE scope = @scope AND key = @key${lock}`,
    params: { scope, key },
  };
  const found = rows[0] && outcome(rows[0], fingerprint, iso(now - settings.staleClaimMs));
  if (found) return found;
  yield { sql: `UPDATE idempotency SET state = 'running', claimed_at = @at WHERE scope = @scope AND key = @key`, params: { scope, key, at } };
  return { state: 'claimed' };
}

const completeStatement = (scope: string, key: string, response: StoredResponse): Statement => ({
  sql: `UPDATE idempotency SET state = 'done', status = @status, content_type = @contentType, body = @body WHERE scope = @scope AND key = @key`,
  params: { scope, key, status: response.status, contentType: response.contentType, body: response.body ? Buffer.from(response.body) : null },
});

const releaseStatement = (scope: string, key: string): Statement => ({
  sql: `DELETE FROM idempotency WHERE scope = @scope AND key = @key AND state = 'running'`,
  params: { scope, key },
});

export class SqliteIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly settings = idempotencyDefaults,
  ) {}

  async claim(scope: string, key: string, fingerprint: string): Promise<IdempotentClaim> {
    return this.db.transaction((): IdempotentClaim => {
      const statements = claimStatements(scope, key, fingerprint, this.settings, '');
      for (let step = statements.next(); ; step = statements.next(this.run(step.value))) if (step.done) return step.value;
    }).immediate();
  }

  async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    this.run(completeStatement(scope, key, response));
  }

  async release(scope: string, key: string): Promise<void> {
    this.run(releaseStatement(scope, key));
  }

  private run({ sql, params }: Statement): Outcome {
    const statement = this.db.prepare(sql);
    if (statement.reader) return { rows: statement.all(params) as Row[], changes: 0 };
    return { rows: [], changes: statement.run(params).changes };
  }
}

export class PgIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: PgDatabase,
    private readonly settings = idempotencyDefaults,
  ) {}

  private readonly query: Query = (text, values) => this.db.query<Row>(text, values);

  async claim(scope: string, key: string, fingerprint: string): Promise<IdempotentClaim> {
    return this.db.transaction(async (client) => {
      const statements = claimStatements(scope, key, fingerprint, this.settings, ' FOR UPDATE');
      for (let step = statements.next(); ; step = statements.next(await run((text, values) => client.query<Row>(text, values), step.value))) if (step.done) return step.value;
    });
  }

  async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
    await run(this.query, completeStatement(scope, key, response));
  }

  async release(scope: string, key: string): Promise<void> {
    await run(this.query, releaseStatement(scope, key));
  }
}

type Query = (text: string, values: unknown[]) => Promise<{ rows: Row[]; rowCount: number | null }>;

async function run(query: Query, statement: Statement): Promise<Outcome> {
  const { text, values } = positional(statement.sql, statement.params);
  const result = await query(text, values);
  return { rows: result.rows, changes: result.rowCount ?? 0 };
}
