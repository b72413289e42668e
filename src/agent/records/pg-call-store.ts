import type { Migration } from '../../service/store/migrations.js';
import { PgDatabase, positional } from '../../service/store/pg-database.js';
import type { CallEnd, CallEntry, CallPage, CallQuery, CallRecord, CallRecordStore } from './call-record.js';
import { PgRecordings, recordingTimesMigrationSql, recordingsMigrationSql } from './pg-recordings.js';
import { beginStatement, endStatement, figuresStatement, listStatement, pageOf, recordOf, type CallRow, type Statement } from './call-rows.js';

export const pgCallDefaults = {
  /** Connections per agent instance: writes of one call go one after another. */
  poolSize: 4,
  /** The table of applied call-record migrations (numbered apart from the speech service's). */
  migrationsTable: 'call_migrations',
};

const callMigrations: Migration[] = [
  {
    version: 1,
    name: 'call records: a row per call, its entries in order, when retention last ran on the fleet',
    sql: `
      CREATE TABLE calls (
        id TEXT PRIMARY KEY,
        trace_id TEXT NOT NULL,
        agent TEXT NOT NULL,
        mode TEXT NOT NULL,
        transport TEXT NOT NULL,
        caller_from TEXT,
        caller_to TEXT,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        ended_by TEXT,
        duration_ms INTEGER,
        finished BOOLEAN NOT NULL DEFAULT FALSE,
        turns INTEGER NOT NULL DEFAULT 0,
        slowest_turn_ms INTEGER,
        failed_tools INTEGER NOT NULL DEFAULT 0,
        search TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX calls_started ON calls(started_at DESC, id DESC);
      CREATE TABLE call_entries (
        call_id TEXT NOT NULL REFERENCES calls(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (call_id, seq)
      );
      CREATE TABLE call_retention (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        swept_at TIMESTAMPTZ NOT NULL
      );
      INSERT INTO call_retention (id, swept_at) VALUES (1, '-infinity');
    `,
  },
  { version: 2, name: "calls' recordings (--record-audio), bytea pieces in order", sql: recordingsMigrationSql },
  { version: 3, name: "when each piece of a recording was written (retention of recordings without a call row)", sql: recordingTimesMigrationSql },
];

/**
 * A batch's entries go in from `firstSeq` (by default after those already kept), and its figures onto the call's
 * row, in one statement; a batch written before (a retry, a replay) adds nothing.
 */
function appendStatement(callId: string, entries: readonly CallEntry[], firstSeq: number | undefined): Statement {
  const figures = figuresStatement(callId, entries);
  return {
    sql: `WITH kept AS (SELECT COUNT(*) AS n FROM call_entries WHERE call_id = @id),
          added AS (
            INSERT INTO call_entries (call_id, seq, data)
            SELECT @id, COALESCE(CAST(@first AS INTEGER), kept.n) + batch.ord - 1, batch.data FROM kept, unnest(CAST(@entries AS TEXT[])) WITH ORDINALITY AS batch(data, ord)
            ON CONFLICT DO NOTHING
            RETURNING 1
          )
          ${figures.sql} AND EXISTS (SELECT 1 FROM added)`,
    params: { ...figures.params, first: firstSeq ?? null, entries: entries.map((entry) => JSON.stringify(entry)) },
  };
}

/**
 * Call records in PostgreSQL (`--database postgres://…`): several agent instances write to one place and any of
 * them lists the whole history. Pool, errors and migrations are the speech service fleet's (`PgDatabase`).
 */
export class PgCallStore implements CallRecordStore {
  /** The calls' recordings, in the same database. */
  readonly recordings: PgRecordings;

  private constructor(private readonly db: PgDatabase) {
    this.recordings = new PgRecordings(db);
  }

  /** Connects and applies the call-record migrations (instances starting at once apply each once). */
  static async open(url: string, options: { onError?: (error: Error) => void } = {}): Promise<PgCallStore> {
    const db = new PgDatabase(url, { poolSize: pgCallDefaults.poolSize, ...(options.onError ? { onError: options.onError } : {}) });
    try {
      await db.migrate(callMigrations, undefined, pgCallDefaults.migrationsTable);
    } catch (error) {
      await db.close().catch(() => {});
      const where = new URL(url);
      where.password = '';
      const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
      throw new Error(`cannot keep call records in ${where.toString()}: ${reason} (check --database and that PostgreSQL is running)`, { cause: error });
    }
    return new PgCallStore(db);
  }

  private async run<R extends object = Record<string, unknown>>({ sql, params }: Statement): Promise<{ rows: R[]; rowCount: number }> {
    const { text, values } = positional(sql, params);
    const result = await this.db.query(text, values);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  }

  async begin(record: Omit<CallRecord, 'entries' | 'finished' | 'charge'>): Promise<void> {
    await this.run(beginStatement(record));
  }

  async append(callId: string, entries: readonly CallEntry[], firstSeq?: number): Promise<void> {
    if (entries.length > 0) await this.run(appendStatement(callId, entries, firstSeq));
  }

  async end(callId: string, end: CallEnd): Promise<void> {
    await this.run(endStatement(callId, end));
  }

  async get(callId: string): Promise<CallRecord | undefined> {
    const [row] = (await this.db.query<CallRow & Record<string, unknown>>('SELECT * FROM calls WHERE id = $1', [callId])).rows;
    if (!row) return undefined;
    const entries = await this.db.query<{ data: string }>('SELECT data FROM call_entries WHERE call_id = $1 ORDER BY seq', [callId]);
    return recordOf(row, entries.rows.map((entry) => entry.data));
  }

  async list(query: CallQuery): Promise<CallPage> {
    const { limit, ...statement } = listStatement(query);
    return pageOf((await this.run<CallRow>(statement)).rows, limit);
  }

  /**
   * Deletes the calls started before `before`, finished or not, with their entries and recordings, and the
   * recordings last written before then whose call has no row (its process was killed before writing it).
   */
  async deleteBefore(before: string): Promise<number> {
    const { rows } = await this.db.query<{ deleted: number }>(
      `WITH gone AS (DELETE FROM calls WHERE started_at < $1 RETURNING id),
            orphans AS (
              SELECT call_id FROM call_recordings GROUP BY call_id
              HAVING MAX(written_at) < CAST($1 AS TIMESTAMPTZ) AND NOT EXISTS (SELECT 1 FROM calls WHERE calls.id = call_recordings.call_id)
            ),
            recordings AS (DELETE FROM call_recordings WHERE call_id IN (SELECT id FROM gone) OR call_id IN (SELECT call_id FROM orphans))
       SELECT COUNT(*) AS deleted FROM gone`,
      [before],
    );
    return Number(rows[0]?.deleted ?? 0);
  }

  /**
   * Whether this instance deletes old records now: true for the first instance of the fleet to ask since
   * `everyMs` ago, false for the others (the row lock makes instances asking at once wait and see the new time).
   */
  async claimSweep(everyMs: number): Promise<boolean> {
    const claimed = await this.db.query(
      `UPDATE call_retention SET swept_at = now() WHERE id = 1 AND swept_at <= now() - make_interval(secs => CAST($1 AS DOUBLE PRECISION))`,
      [everyMs / 1000],
    );
    return claimed.rowCount === 1;
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
