import { sumCharges } from '../charges.js';
import type { CallEntry, CallPage, CallQuery, CallRecord, CallSummary } from './call-record.js';
import { entryFigures, pageDefaults } from './entry-figures.js';

/**
 * The SQL and row shapes SQLite and PostgreSQL call stores share. Statements use named parameters (`@name`):
 * SQLite binds them as they are, PostgreSQL through `positional()`.
 */

export interface CallRow {
  id: string;
  trace_id: string;
  agent: string;
  mode: string;
  transport: string;
  started_at: string;
  ended_at: string | null;
  ended_by: string | null;
  duration_ms: number | null;
  /** 0/1 in SQLite, a boolean in PostgreSQL. */
  finished: number | boolean;
  turns: number;
  slowest_turn_ms: number | null;
  failed_tools: number;
}

export interface Statement {
  sql: string;
  params: Record<string, unknown>;
}

export function summaryOf(row: CallRow): CallSummary {
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
    finished: Boolean(row.finished),
    turns: row.turns,
    ...(row.slowest_turn_ms !== null ? { slowestTurnMs: row.slowest_turn_ms } : {}),
    failedTools: row.failed_tools,
  };
}

/** A call's record from its row and its entries' stored JSON, in order. */
export function recordOf(row: CallRow, entries: readonly string[]): CallRecord {
  const { turns: _turns, slowestTurnMs: _slowest, failedTools: _failed, ...record } = summaryOf(row);
  const parsed = entries.map((data) => JSON.parse(data) as CallEntry);
  return { ...record, entries: parsed, charge: chargeOf(parsed) };
}

/** The charges the call's turns (and its recognition's `charge` entry) report, summed; null when none reports one. */
export function chargeOf(entries: readonly CallEntry[]): number | null {
  const charges = entries.flatMap((entry) => (entry.kind === 'turn' ? [entry.metrics.sttCharge, entry.metrics.ttsCharge] : entry.kind === 'charge' ? [entry.sttCharge] : []));
  return sumCharges(charges) ?? null;
}

export function beginStatement(record: Omit<CallRecord, 'entries' | 'finished' | 'charge'>): Statement {
  return {
    sql: `INSERT INTO calls (id, trace_id, agent, mode, transport, caller_from, caller_to, started_at)
          VALUES (@id, @traceId, @agent, @mode, @transport, @from, @to, @startedAt)
          ON CONFLICT (id) DO NOTHING`,
    params: {
      id: record.id,
      traceId: record.traceId,
      agent: record.agent,
      mode: record.mode,
      transport: JSON.stringify(record.transport),
      from: record.transport.from ?? null,
      to: record.transport.to ?? null,
      startedAt: record.startedAt,
    },
  };
}

/** What a batch of entries adds to its call's row: turns, failed tools, the slowest turn, the searchable words. */
export function figuresStatement(callId: string, entries: readonly CallEntry[]): Statement {
  const figures = entryFigures(entries);
  return {
    sql: `UPDATE calls SET turns = turns + @turns, failed_tools = failed_tools + @failedTools,
            slowest_turn_ms = CASE WHEN CAST(@slowest AS INTEGER) > COALESCE(slowest_turn_ms, -1) THEN CAST(@slowest AS INTEGER) ELSE slowest_turn_ms END,
            search = search || @search
          WHERE id = @id`,
    params: { id: callId, turns: figures.turns, failedTools: figures.failedTools, slowest: figures.slowestTurnMs ?? null, search: figures.search },
  };
}

export function endStatement(callId: string, end: { endedAt: string; endedBy: string; durationMs: number }): Statement {
  return {
    sql: 'UPDATE calls SET ended_at = @endedAt, ended_by = @endedBy, duration_ms = @durationMs, finished = TRUE WHERE id = @id',
    params: { id: callId, ...end },
  };
}

/** The page `query` asks for: one row more than the limit, which says whether there is a next page. */
export function listStatement(query: CallQuery): Statement & { limit: number } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  const add = (clause: string, values: Record<string, unknown> = {}) => (where.push(clause), Object.assign(params, values));
  if (query.since) add('started_at >= @since', { since: query.since });
  if (query.until) add('started_at < @until', { until: query.until });
  if (query.from) add('caller_from = @from', { from: query.from });
  if (query.to) add('caller_to = @to', { to: query.to });
  if (query.endedBy) add('LOWER(ended_by) LIKE @endedBy', { endedBy: `%${query.endedBy.toLowerCase()}%` });
  if (query.text) add('search LIKE @text', { text: `%${query.text.toLowerCase()}%` });
  if (query.slowerThanMs !== undefined) add('slowest_turn_ms > @slower', { slower: query.slowerThanMs });
  if (query.failedTools) add('failed_tools > 0');
  if (query.before) {
    const [startedAt, id] = query.before.split('|');
    add('(started_at < @beforeAt OR (started_at = @beforeAt AND id < @beforeId))', { beforeAt: startedAt, beforeId: id ?? '' });
  }
  const limit = Math.min(query.limit ?? pageDefaults.limit, pageDefaults.maxLimit);
  return {
    sql: `SELECT * FROM calls ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC, id DESC LIMIT @limit`,
    params: { ...params, limit: limit + 1 },
    limit,
  };
}

export function pageOf(rows: readonly CallRow[], limit: number): CallPage {
  const calls = rows.slice(0, limit).map(summaryOf);
  const last = calls.at(-1);
  return { calls, ...(rows.length > limit && last ? { next: `${last.startedAt}|${last.id}` } : {}) };
}
