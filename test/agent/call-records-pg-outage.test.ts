/**
 * Call records while PostgreSQL is down: kept and retried during a call, spooled past the queue's bound and at
 * close, the spool replayed once the database answers again and at start.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Subject } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { recordCall, type AgentEvent } from '../../src/agent/index.js';
import { PgCallStore } from '../../src/agent/records/pg-call-store.js';
import { systemClock } from '../../src/pipeline/index.js';
import { openCallRecords } from '../../src/cli/call-records.js';
import { fleetCluster } from '../support/fleet-harness.js';

// The file's throwaway PostgreSQL, started before its tests and removed after them.
const cluster = fleetCluster();

const turnEvent = (turn: number): AgentEvent =>
  ({ type: 'turn-metrics', report: { turn, userText: `caller ${turn}`, agentText: `agent ${turn}`, interrupted: false, metrics: { interrupted: false } } }) as AgentEvent;
const hangup = { type: 'hangup', reason: 'caller hung up', summary: { durationMs: 3000 } } as unknown as AgentEvent;

async function open(database: string, dataDir: string, warnings: string[], maxQueued?: number) {
  const opened = await openCallRecords({ database, dataDir }, () => {}, {
    log: { warn: (_details, message) => warnings.push(message) },
    queue: { retryFirstMs: 50, retryMaxMs: 400, closeWaitMs: 300, ...(maxQueued !== undefined ? { maxQueued } : {}) },
  });
  return opened!;
}

function call(records: Awaited<ReturnType<typeof open>>['records'], id: string) {
  const events$ = new Subject<AgentEvent>();
  recordCall({ ...records, flushEveryMs: 10 }, { events$, traceId: `trace-${id}` }, { id, agent: 'a', mode: 'balanced', transport: { kind: 'phone', carrier: 'twilio' }, clock: systemClock });
  return events$;
}

/** Every entry row of the call, straight from the table: (seq, turn). */
async function rows(database: string, id: string) {
  const client = new pg.Client(database);
  await client.connect();
  try {
    const result = await client.query<{ seq: number; data: string }>('SELECT seq, data FROM call_entries WHERE call_id = $1 ORDER BY seq', [id]);
    const calls = await client.query<{ turns: number; finished: boolean }>('SELECT turns, finished FROM calls WHERE id = $1', [id]);
    return { entries: result.rows.map((row) => [row.seq, (JSON.parse(row.data) as { turn: number }).turn]), call: calls.rows[0] };
  } finally {
    await client.end();
  }
}

describe('call records when PostgreSQL is down', () => {
  it('a call that goes on while the database restarts leaves its whole record, every turn once, and its end', async () => {
    const database = await cluster.createDatabase();
    const warnings: string[] = [];
    const opened = await open(database, await mkdtemp(join(tmpdir(), 'shoal-outage-')), warnings);
    const events$ = call(opened.records, 'restarted');
    events$.next(turnEvent(1));
    await vi.waitFor(async () => expect((await rows(database, 'restarted')).entries).toHaveLength(1), { timeout: 5_000 });
    await cluster.stop();
    try {
      for (const turn of [2, 3, 4]) {
        events$.next(turnEvent(turn));
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      events$.next(hangup);
      await vi.waitFor(() => expect(warnings).toContain('call records: writes are failing; they are kept and retried'), { timeout: 5_000 });
      expect(opened.records.writes!.queued).toBeGreaterThan(0);
    } finally {
      await cluster.start();
    }
    await vi.waitFor(() => expect(opened.records.writes!.queued).toBe(0), { timeout: 10_000 });
    expect(warnings.filter((line) => line.includes('failing'))).toHaveLength(1);
    expect(warnings.at(-1)).toBe('call records: writes recovered');
    expect(await rows(database, 'restarted')).toEqual({ entries: [[0, 1], [1, 2], [2, 3], [3, 4]], call: { turns: 4, finished: true } });
    await opened.close();
  }, 60_000);

  it('a process closed while the database is down spools what is unwritten, and the next start writes it once', async () => {
    const database = await cluster.createDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), 'shoal-outage-'));
    const warnings: string[] = [];
    const opened = await open(database, dataDir, warnings);
    const events$ = call(opened.records, 'spooled');
    events$.next(turnEvent(1));
    await vi.waitFor(async () => expect((await rows(database, 'spooled')).entries).toHaveLength(1), { timeout: 5_000 });
    await cluster.stop();
    const spool = join(dataDir, 'calls-spool.jsonl');
    try {
      events$.next(turnEvent(2));
      await new Promise((resolve) => setTimeout(resolve, 30));
      events$.next(turnEvent(3));
      events$.next(hangup);
      await opened.close();
      const spooled = readFileSync(spool, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { op: string }).op);
      expect(spooled).toEqual(['append', 'append', 'end']);
      expect(warnings).toContain('call records: writes not done at close kept in the spool, replayed at the next start');
    } finally {
      await cluster.start();
    }
    // The second turn's batch reached the table before the outage was seen (its answer was lost): replayed, it
    // adds neither its entry nor its figures again.
    const before = await PgCallStore.open(database);
    await before.append('spooled', [{ kind: 'keypad', atMs: 1, digits: '5' }], 1);
    await before.close();
    const next = await open(database, dataDir, warnings);
    expect(existsSync(spool)).toBe(false);
    expect(warnings.at(-1)).toBe('call records: the spool of the last run written to the store');
    expect(await rows(database, 'spooled')).toEqual({ entries: [[0, 1], [1, undefined], [2, 3]], call: { turns: 2, finished: true } });
    expect(await next.store.get('spooled')).toMatchObject({ finished: true, endedBy: 'caller hung up' });
    await next.close();
  }, 60_000);

  it('writes spooled while the database is down are written once it is back, while the agent runs, each once', async () => {
    const database = await cluster.createDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), 'shoal-outage-'));
    const spool = join(dataDir, 'calls-spool.jsonl');
    const warnings: string[] = [];
    // A queue of two writes: the outage's writes go to the spool.
    const opened = await open(database, dataDir, warnings, 2);
    const events$ = call(opened.records, 'live-replay');
    events$.next(turnEvent(1));
    await vi.waitFor(async () => expect((await rows(database, 'live-replay')).entries).toHaveLength(1), { timeout: 5_000 });
    await cluster.stop();
    let during: Subject<AgentEvent>;
    try {
      for (const turn of [2, 3, 4, 5]) {
        events$.next(turnEvent(turn));
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      during = call(opened.records, 'during-outage');
      during.next(turnEvent(1));
      await vi.waitFor(() => expect(existsSync(spool)).toBe(true), { timeout: 5_000 });
      // Replays while the database is down write nothing and keep the spool whole.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(existsSync(spool) || existsSync(`${spool}.replaying`)).toBe(true);
    } finally {
      await cluster.start();
    }
    // A call that started while the database was down goes on after it is back: its later writes too.
    during.next(turnEvent(2));
    during.next(hangup);
    events$.next(turnEvent(6));
    events$.next(hangup);
    await vi.waitFor(async () => {
      expect(existsSync(spool)).toBe(false);
      expect(await rows(database, 'live-replay')).toEqual({ entries: [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6]], call: { turns: 6, finished: true } });
      expect(await rows(database, 'during-outage')).toEqual({ entries: [[0, 1], [1, 2]], call: { turns: 2, finished: true } });
    }, { timeout: 15_000, interval: 100 });
    expect(warnings).toContain('call records: spooled writes written to the store');
    expect(existsSync(`${spool}.replaying`)).toBe(false);
    await opened.close();
    expect(existsSync(spool)).toBe(false);
  }, 60_000);
});
