import { openDatabase, type SqliteDatabase } from '../../service/store/database.js';
import type { Migration } from '../../service/store/migrations.js';
import type { CallEntry, CallPage, CallQuery, CallRecord, CallRecordStore, CallSummary } from './call-record.js';
import { entryFigures, pageDefaults } from './entry-figures.js';

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

interface CallRow {
  id: string;
  trace_id: string;
  agent: string;
  mode: string;
  transport: string;
  started_at: string;
  ended_at: string | null;
  ended_by: string | null;
  duration_ms: number | null;
  finished: number;
  turns: number;
  slowest_turn_ms: number | null;
  failed_tools: number;
}

function summaryOf(row: CallRow): CallSummary {
  return {
    id: row.id,
    traceId: row.trace_id,
    agent: row.agent,
    mode: row.mode,
    transport: JSON.parse(row.transport) as CallSummary['transport'],
    startedAt: row.started_at,
    ...(row.ended_at ? { endedAt: row.ended_at } : {}),
    ...(row.ended_by ? { endedBy: row.ended_by } : {}),
    ...(row.duration_ms !== null ? { durationMs: row.duration_ms } : {}),
    finished: row.finished === 1,
    turns: row.turns,
    ...(row.slowest_turn_ms !== null ? { slowestTurnMs: row.slowest_turn_ms } : {}),
    failedTools: row.failed_tools,
  };
}

/** Call records in SQLite, in the agent's data folder (`--data-dir`): `calls.sqlite`. */
export class SqliteCallStore implements CallRecordStore {
  private readonly db: SqliteDatabase;

  constructor(dataDir: string) {
    this.db = openDatabase(dataDir, {}, callMigrations, 'calls.sqlite');
  }

  async begin(record: Omit<CallRecord, 'entries' | 'finished'>): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO calls (id, trace_id, agent, mode, transport, caller_from, caller_to, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(record.id, record.traceId, record.agent, record.mode, JSON.stringify(record.transport), record.transport.from ?? null, record.transport.to ?? null, record.startedAt);
  }

  async append(callId: string, entries: readonly CallEntry[]): Promise<void> {
    const figures = entryFigures(entries);
    this.db.transaction(() => {
      const { n } = this.db.prepare('SELECT COUNT(*) AS n FROM call_entries WHERE call_id = ?').get(callId) as { n: number };
      const insert = this.db.prepare('INSERT INTO call_entries (call_id, seq, data) VALUES (?, ?, ?)');
      entries.forEach((entry, index) => insert.run(callId, n + index, JSON.stringify(entry)));
      this.db
        .prepare(
          `UPDATE calls SET turns = turns + ?, failed_tools = failed_tools + ?, slowest_turn_ms = MAX(COALESCE(slowest_turn_ms, 0), ?),
           search = search || ? WHERE id = ?`,
        )
        .run(figures.turns, figures.failedTools, figures.slowestTurnMs ?? 0, figures.search, callId);
    })();
  }

  async end(callId: string, end: { endedAt: string; endedBy: string; durationMs: number }): Promise<void> {
    this.db.prepare('UPDATE calls SET ended_at = ?, ended_by = ?, duration_ms = ?, finished = 1 WHERE id = ?').run(end.endedAt, end.endedBy, end.durationMs, callId);
  }

  async get(callId: string): Promise<CallRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM calls WHERE id = ?').get(callId) as CallRow | undefined;
    if (!row) return undefined;
    const entries = (this.db.prepare('SELECT data FROM call_entries WHERE call_id = ? ORDER BY seq').all(callId) as Array<{ data: string }>).map(
      (entry) => JSON.parse(entry.data) as CallEntry,
    );
    const { turns: _turns, slowestTurnMs: _slowest, failedTools: _failed, ...record } = summaryOf(row);
    return { ...record, entries };
  }

  async list(query: CallQuery): Promise<CallPage> {
    const where: string[] = [];
    const values: unknown[] = [];
    const add = (clause: string, ...params: unknown[]) => (where.push(clause), values.push(...params));
    if (query.since) add('started_at >= ?', query.since);
    if (query.until) add('started_at < ?', query.until);
    if (query.from) add('caller_from = ?', query.from);
    if (query.to) add('caller_to = ?', query.to);
    if (query.endedBy) add('ended_by LIKE ?', `%${query.endedBy}%`);
    if (query.text) add('search LIKE ?', `%${query.text.toLowerCase()}%`);
    if (query.slowerThanMs !== undefined) add('slowest_turn_ms > ?', query.slowerThanMs);
    if (query.failedTools) add('failed_tools > 0');
    if (query.before) {
      const [startedAt, id] = query.before.split('|');
      add('(started_at < ? OR (started_at = ? AND id < ?))', startedAt, startedAt, id ?? '');
    }
    const limit = Math.min(query.limit ?? pageDefaults.limit, pageDefaults.maxLimit);
    const rows = this.db
      .prepare(`SELECT * FROM calls ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC, id DESC LIMIT ?`)
      .all(...values, limit + 1) as CallRow[];
    const calls = rows.slice(0, limit).map(summaryOf);
    const last = calls.at(-1);
    return { calls, ...(rows.length > limit && last ? { next: `${last.startedAt}|${last.id}` } : {}) };
  }

  async deleteBefore(before: string): Promise<number> {
    return this.db.prepare('DELETE FROM calls WHERE started_at < ?').run(before).changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
