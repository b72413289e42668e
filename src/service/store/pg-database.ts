import pg from 'pg';
import { ServiceError } from '../accounts.js';
import type { Migration } from './migrations.js';
import { pgMigrations } from './pg-migrations.js';

export const defaults = {
  /** Connections per instance. */
  poolSize: 10,
  /** A request waits this long for a connection before it is answered 503, in ms. */
  connectTimeoutMs: 2_000,
  /** A statement running longer than this is cancelled, in ms. */
  statementTimeoutMs: 15_000,
  /** Retry-After of a 503 while the database is unreachable, in seconds. */
  retryAfterSeconds: 2,
  /** Key of the advisory lock migrations and first-start setup run under (any fixed 64-bit number). */
  migrationLock: 0x5_40a1,
};

/** The database cannot be reached (restarting, network, pool exhausted): answered 503 with Retry-After. */
export class StoreUnavailableError extends ServiceError {
  constructor(cause: unknown) {
    super(503, 'the database is unreachable; retry shortly', defaults.retryAfterSeconds);
    this.name = 'StoreUnavailableError';
    this.cause = cause;
  }
}

// Connection exceptions (08), shutdown and startup (57P01-03), too many connections (53300).
const unavailableCodes = new Set(['57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH']);
const unavailableMessages = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection closed|not queryable/i;

export function isUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (unavailableCodes.has(code) || code.startsWith('08'))) return true;
  return typeof message === 'string' && unavailableMessages.test(message);
}

/** Named parameters (`@name`) to PostgreSQL's positional ones (`$1`), for SQL shared with SQLite. */
export function positional(sql: string, params: Record<string, unknown>): { text: string; values: unknown[] } {
  const names: string[] = [];
  const text = sql.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => {
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text, values: names.map((name) => params[name]) };
}

export const changesChannel = 'shoal_changes';

export type Queryable = Pick<pg.PoolClient, 'query'>;

export interface PgDatabaseOptions {
  poolSize?: number;
  connectTimeoutMs?: number;
  /** Called with pool errors of idle connections (a restart); they are expected and never fatal. */
  onError?: (error: Error) => void;
}

/**
 * A pooled PostgreSQL connection. Every query and transaction goes through it, so that an unreachable
 * database becomes one StoreUnavailableError (503) and `healthy` follows the last outcome.
 */
export class PgDatabase {
  readonly pool: pg.Pool;
  /** False after a query failed to reach the database, until one succeeds again. */
  healthy = true;

  constructor(
    readonly url: string,
    options: PgDatabaseOptions = {},
  ) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? defaults.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs ?? defaults.connectTimeoutMs,
      statement_timeout: defaults.statementTimeoutMs,
      // BIGINT (micro-credits, counters) as numbers: balances stay far below 2^53.
      types: { getTypeParser: (oid: number, format?: string) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text')) },
    } as pg.PoolConfig);
    this.pool.on('error', (error) => {
      this.healthy = false;
      options.onError?.(error);
    });
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[] = [], name?: string): Promise<pg.QueryResult<R>> {
    return this.guard(() => this.pool.query<R>({ text, values, ...(name ? { name } : {}) }));
  }

  /** Runs `work` in one transaction on one connection; rolls back when it throws. */
  async transaction<T>(work: (client: Queryable) => Promise<T>): Promise<T> {
    return this.guard(async () => {
      const client = await this.pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        broken = isUnavailable(error);
        if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
        throw error;
      } finally {
        client.release(broken);
      }
    });
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      this.healthy = true;
      return result;
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      this.healthy = false;
      throw new StoreUnavailableError(error);
    }
  }

  /**
   * Applies the migrations not applied yet, and then `setup`, under one advisory lock: instances starting
   * at once apply each migration once, and the first-start setup (the dev key) runs in turn. `table` keeps the
   * applied versions: a schema numbered on its own (the agent's call records) has a table of its own.
   */
  async migrate(list: readonly Migration[] = pgMigrations, setup?: () => Promise<void>, table = 'migrations'): Promise<void> {
    const client = await this.pool.connect();
    let broken = false;
    // A connection lost mid-migration also fails the query in progress, which reports it; without a listener
    // the client's own 'error' event would be unhandled.
    const lost = () => (broken = true);
    client.on('error', lost);
    try {
      await client.query('SELECT pg_advisory_lock($1)', [defaults.migrationLock]);
      try {
        await client.query(`CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
        const applied = new Set((await client.query<{ version: number }>(`SELECT version FROM ${table}`)).rows.map((row) => row.version));
        for (const migration of [...list].sort((a, b) => a.version - b.version)) {
          if (applied.has(migration.version)) continue;
          await client.query('BEGIN');
          try {
            await client.query(migration.sql);
            await client.query(`INSERT INTO ${table} (version, name, applied_at) VALUES ($1, $2, $3)`, [migration.version, migration.name, new Date().toISOString()]);
            await client.query('COMMIT');
          } catch (error) {
            // A rollback that fails too (the connection is gone) must not hide why the migration failed.
            await client.query('ROLLBACK').catch(() => {});
            throw error;
          }
        }
        await setup?.();
      } finally {
        // Ending the session releases the lock as well; a failed unlock must not replace the error being thrown.
        await client.query('SELECT pg_advisory_unlock($1)', [defaults.migrationLock]).catch(() => (broken = true));
      }
    } finally {
      client.off('error', lost);
      client.release(broken);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
