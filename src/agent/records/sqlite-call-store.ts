import { openDatabase, type SqliteDatabase } from '../../service/store/database.js';
import type { Migration } from '../../service/store/migrations.js';
import type { CallEnd, CallEntry, CallPage, CallQuery, CallRecord, CallRecordStore } from './call-record.js';
import { beginStatement, endStatement, figuresStatement, listStatement, pageOf, recordOf, type CallRow, type Statement } from './call-rows.js';

const callMigrations: Migration[] = [
  {
    version: 1,
    name: 'call records: a row per call, its entries in order',
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
        finished INTEGER NOT NULL DEFAULT 0,
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
    `,
  },
];

/** Call records in SQLite, in the agent's data folder (`--data-dir`): `calls.sqlite`. */
export class SqliteCallStore implements CallRecordStore {
  private readonly db: SqliteDatabase;

  constructor(dataDir: string) {
    this.db = openDatabase(dataDir, {}, callMigrations, 'calls.sqlite');
  }

  private run({ sql, params }: Statement): void {
    this.db.prepare(sql).run(params);
  }

  async begin(record: Omit<CallRecord, 'entries' | 'finished' | 'charge'>): Promise<void> {
    this.run(beginStatement(record));
  }

  async append(callId: string, entries: readonly CallEntry[], firstSeq?: number): Promise<void> {
    this.db.transaction(() => {
      const first = firstSeq ?? (this.db.prepare('SELECT COUNT(*) AS n FROM call_entries WHERE call_id = ?').get(callId) as { n: number }).n;
      const insert = this.db.prepare('INSERT INTO call_entries (call_id, seq, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
      const added = entries.reduce((count, entry, index) => count + insert.run(callId, first + index, JSON.stringify(entry)).changes, 0);
      // A batch written before (a retry, a replay) adds nothing to the call's figures.
      if (added > 0) this.run(figuresStatement(callId, entries));
    })();
  }

  async end(callId: string, end: CallEnd): Promise<void> {
    this.run(endStatement(callId, end));
  }

  async get(callId: string): Promise<CallRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM calls WHERE id = ?').get(callId) as CallRow | undefined;
    if (!row) return undefined;
    const entries = this.db.prepare('SELECT data FROM call_entries WHERE call_id = ? ORDER BY seq').all(callId) as Array<{ data: string }>;
    return recordOf(row, entries.map((entry) => entry.data));
  }

  async list(query: CallQuery): Promise<CallPage> {
    const { sql, params, limit } = listStatement(query);
    return pageOf(this.db.prepare(sql).all(params) as CallRow[], limit);
  }

  async deleteBefore(before: string): Promise<number> {
    return this.db.prepare('DELETE FROM calls WHERE started_at < ?').run(before).changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
