/** Call records in PostgreSQL: the SQLite store's behaviour, several agent processes writing one history, retention once per fleet. */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { SqliteCallStore, type CallEntry, type CallRecordStore } from '../../src/agent/index.js';
import { PgCallStore } from '../../src/agent/records/pg-call-store.js';
import { openCallRecords } from '../../src/cli/call-records.js';
import { showCall } from '../../src/cli/run-calls.js';
import { openPgStores } from '../../src/service/store/index.js';
import { fleetCluster } from '../support/fleet-harness.js';
import { virtualCall } from '../support/agent-virtual-call.js';
import { shoalEntry } from '../support/shoal-entry.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
// The file's throwaway PostgreSQL, started before its tests and removed after them.
const cluster = fleetCluster();

const turn = (ms: number | undefined, userText: string): CallEntry => ({
  kind: 'turn',
  atMs: 10,
  turn: 1,
  userText,
  agentText: 'ok',
  interrupted: false,
  metrics: { interrupted: false, ...(ms !== undefined ? { voiceToVoiceMs: ms } : {}) },
});

/** The same calls written to a store, and what each query and read gives back. */
async function exercise(store: CallRecordStore) {
  for (let i = 0; i < 3; i++) {
    const id = `call-${i}`;
    await store.begin({ id, traceId: `t${i}`, agent: 'a', mode: 'balanced', transport: { kind: 'phone', carrier: 'twilio', from: i === 1 ? '+14155550100' : '+14155550199' }, startedAt: `2026-11-28T1${i}:00:00.000Z` });
    await store.append(id, [turn(300 + i * 500, i === 2 ? 'I want a Refund' : 'hello')]);
    await store.append(id, [turn(undefined, 'and then'), { kind: 'keypad', atMs: 20, digits: '42' }]);
    if (i === 0) await store.append(id, [{ kind: 'tool', atMs: 30, name: 'refund', arguments: { order: 7 }, error: 'timeout' }]);
    if (i !== 1) await store.end(id, { endedAt: `2026-11-28T1${i}:05:00.000Z`, endedBy: i === 0 ? 'Agent ended the call' : 'caller hung up', durationMs: 300_000 });
  }
  const ids = async (query: Parameters<CallRecordStore['list']>[0]) => (await store.list(query)).calls.map((call) => call.id);
  const first = await store.list({ limit: 2 });
  return {
    all: (await store.list({})).calls,
    text: await ids({ text: 'refund' }),
    slow: await ids({ slowerThanMs: 700 }),
    failed: await ids({ failedTools: true }),
    from: await ids({ from: '+14155550100' }),
    endedBy: await ids({ endedBy: 'agent' }),
    since: await ids({ since: '2026-11-28T11:00:00.000Z', until: '2026-11-28T12:00:00.000Z' }),
    pages: [first.calls.map((call) => call.id), await ids({ limit: 2, before: first.next! })],
    records: await Promise.all(['call-0', 'call-1', 'call-2', 'nope'].map((id) => store.get(id))),
    deleted: await store.deleteBefore('2026-11-28T11:30:00.000Z'),
    left: await ids({}),
  };
}

describe('call records in PostgreSQL', () => {
  it('behave as the SQLite ones: the same records, figures, filters, pages and deletions', async () => {
    const sqlite = new SqliteCallStore(await mkdtemp(join(tmpdir(), 'shoal-calls-')));
    const postgres = await PgCallStore.open(await cluster.createDatabase());
    try {
      const [fromSqlite, fromPg] = [await exercise(sqlite), await exercise(postgres)];
      expect(fromPg).toEqual(fromSqlite);
      // What both must be, so that "equal" is not "equally wrong".
      expect(fromPg.all.map((call) => [call.id, call.turns, call.slowestTurnMs, call.failedTools, call.finished])).toEqual([
        ['call-2', 2, 1300, 0, true],
        ['call-1', 2, 800, 0, false],
        ['call-0', 2, 300, 1, true],
      ]);
      expect(fromPg).toMatchObject({ text: ['call-2', 'call-0'], slow: ['call-2', 'call-1'], failed: ['call-0'], from: ['call-1'], endedBy: ['call-0'], since: ['call-1'] });
      expect(fromPg.pages).toEqual([['call-2', 'call-1'], ['call-0']]);
      expect(fromPg.records[1]).toMatchObject({ id: 'call-1', finished: false, transport: { kind: 'phone', carrier: 'twilio', from: '+14155550100' } });
      expect(fromPg.records[1]!.endedAt).toBeUndefined();
      expect(fromPg.records[0]!.entries.map((entry) => entry.kind)).toEqual(['turn', 'turn', 'keypad', 'tool']);
      expect(fromPg.records[3]).toBeUndefined();
      expect([fromPg.deleted, fromPg.left]).toEqual([2, ['call-2']]);
    } finally {
      await sqlite.close();
      await postgres.close();
    }
  });

  it('keep one history written by two agent processes, read from either and by shoal calls; a process killed mid-call leaves its call unfinished', async () => {
    const url = await cluster.createDatabase();
    const dir = await mkdtemp(join(tmpdir(), 'shoal-calls-pg-'));
    const script = join(dir, 'agent-instance.mts');
    // One agent instance: opens the records as `shoal agent --database` does, then either takes a whole call on a
    // virtual clock, or records one turn of a call and is killed once it is written.
    await writeFile(
      script,
      `import { recordCall } from ${JSON.stringify(join(root, 'src/agent/index.ts'))};
      import { openCallRecords } from ${JSON.stringify(join(root, 'src/cli/call-records.ts'))};
      import { virtualCall } from ${JSON.stringify(join(root, 'test/support/agent-virtual-call.ts'))};
      const opened = await openCallRecords({ database: process.argv[2], keepCalls: '30d' }, (error) => { console.error(error); process.exitCode = 1; });
      if (process.argv[3] === 'whole') {
        await virtualCall({ records: opened.records });
        await opened.close();
      } else {
        let emit;
        const events$ = { subscribe: (next) => void (emit = next) };
        const facts = { id: 'killed-call', agent: 'a', mode: 'balanced', transport: { kind: 'phone', carrier: 'twilio' }, clock: { now: () => performance.now() } };
        recordCall({ ...opened.records, flushEveryMs: 10 }, { events$, traceId: 'trace-1' }, facts);
        emit({ type: 'turn-metrics', report: { turn: 1, userText: 'hello', agentText: 'hi there', interrupted: false, metrics: { interrupted: false } } });
        setInterval(() => opened.records.writes.queued === 0 && process.kill(process.pid, 'SIGKILL'), 20);
      }`,
    );
    const instance = (how: 'whole' | 'killed') =>
      new Promise<number | string | null>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script, url, how], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
        child.once('exit', (code, signal) => resolve(signal ?? code));
      });
    // Started together: the migrations and the retention claim race, and each is done once.
    expect(await Promise.all([instance('whole'), instance('killed')])).toEqual([0, 'SIGKILL']);
    const one = await PgCallStore.open(url);
    const other = await PgCallStore.open(url);
    try {
      const listed = (await one.list({})).calls;
      expect(listed).toHaveLength(2);
      const whole = listed.find((call) => call.id !== 'killed-call')!;
      expect(whole).toMatchObject({ finished: true, transport: { kind: 'file' } });
      expect(whole.turns).toBeGreaterThanOrEqual(2);
      expect((await other.list({})).calls).toEqual(listed);
      const killed = await other.get('killed-call');
      expect(killed).toMatchObject({ finished: false, transport: { kind: 'phone', carrier: 'twilio' }, entries: [{ kind: 'turn', userText: 'hello', agentText: 'hi there' }] });
      expect(killed!.endedAt).toBeUndefined();
      const { stdout } = await run(process.execPath, [shoalEntry(), 'calls', 'list', '--database', url, '--json'], { cwd: root, timeout: 60_000 });
      expect((JSON.parse(stdout) as { calls: Array<{ id: string }> }).calls.map((call) => call.id)).toEqual(listed.map((call) => call.id));
      const printed: string[] = [];
      const write = vi.spyOn(process.stdout, 'write').mockImplementation((text) => (printed.push(String(text)), true));
      try {
        await showCall(whole.id, { dataDir: 'unused', database: url });
      } finally {
        write.mockRestore();
      }
      expect(printed.join('')).toContain(`call ${whole.id}`);
      expect(printed.join('')).toMatch(/agent \(\d+ ms\): /);
    } finally {
      await one.close();
      await other.close();
    }
    const client = new pg.Client(url);
    await client.connect();
    try {
      expect((await client.query('SELECT version FROM call_migrations')).rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
    } finally {
      await client.end();
    }
  }, 60_000);

  it('run --keep-calls retention on one instance of the fleet at a time', async () => {
    const url = await cluster.createDatabase();
    const stores = await Promise.all([PgCallStore.open(url), PgCallStore.open(url)]);
    try {
      // Instances asking at the same moment: exactly one runs it; then nobody until the period has passed.
      const claims = await Promise.all(stores.flatMap((store) => [store.claimSweep(3_600_000), store.claimSweep(3_600_000), store.claimSweep(3_600_000)]));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await stores[1]!.claimSweep(3_600_000)).toBe(false);
      expect(await stores[0]!.claimSweep(0)).toBe(true);
      // openCallRecords deletes only when its instance won the claim: a fresh claim (0 ms ago) holds others off.
      const old = new Date(Date.now() - 3 * 86_400_000).toISOString();
      await stores[0]!.begin({ id: 'old', traceId: 't', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, startedAt: old });
      const held = (await openCallRecords({ database: url, keepCalls: '2d' }, (error) => { throw error; }))!;
      await held.close();
      expect((await stores[0]!.list({})).calls.map((call) => call.id)).toEqual(['old']);
      const client = new pg.Client(url);
      await client.connect();
      await client.query(`UPDATE call_retention SET swept_at = now() - interval '2 hours'`);
      await client.end();
      const swept = (await openCallRecords({ database: url, keepCalls: '2d' }, (error) => { throw error; }))!;
      await swept.close();
      expect((await stores[0]!.list({})).calls).toEqual([]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('delete with --keep-calls an old unfinished call and its audio, and old audio whose call row was never written', async () => {
    const url = await cluster.createDatabase();
    const store = await PgCallStore.open(url);
    const client = new pg.Client(url);
    await client.connect();
    try {
      const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
      // A process killed mid-call: the call's row with no end, or only its audio (the row was still queued).
      await store.begin({ id: 'killed', traceId: 't', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, startedAt: daysAgo(3) });
      await store.begin({ id: 'recent', traceId: 't', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, startedAt: daysAgo(0) });
      for (const id of ['killed', 'recent', 'rowless-old', 'rowless-recent']) {
        await client.query('INSERT INTO call_recordings (call_id, byte_offset, bytes) VALUES ($1, 0, $2), ($1, 3, $2)', [id, Buffer.from('Ogg')]);
      }
      await client.query(`UPDATE call_recordings SET written_at = now() - interval '3 days' WHERE call_id IN ('killed', 'rowless-old')`);
      expect((await store.get('killed'))!.finished).toBe(false);
      const swept = (await openCallRecords({ database: url, keepCalls: '2d' }, (error) => { throw error; }))!;
      await swept.close();
      expect((await store.list({})).calls.map((call) => call.id)).toEqual(['recent']);
      const left = await client.query('SELECT DISTINCT call_id FROM call_recordings ORDER BY call_id');
      expect(left.rows.map((row: { call_id: string }) => row.call_id)).toEqual(['recent', 'rowless-recent']);
    } finally {
      await client.end();
      await store.close();
    }
  });

  it('share a database with the speech service fleet (shoal serve --database), each schema numbered apart', async () => {
    const url = await cluster.createDatabase();
    const service = await openPgStores(url, { serve: false });
    await service.close();
    const store = await PgCallStore.open(url);
    await store.begin({ id: 'c', traceId: 't', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, startedAt: new Date().toISOString() });
    expect((await store.list({})).calls.map((call) => call.id)).toEqual(['c']);
    await store.close();
    const again = await openPgStores(url, { serve: false });
    await again.close();
  });

  it('refuse a --database that is not a PostgreSQL URL, or cannot be reached, and say so', async () => {
    await expect(openCallRecords({ database: 'mysql://db/calls' }, () => {})).rejects.toThrow(/--database must be a postgres:\/\/ or postgresql:\/\/ URL/);
    const unreachable = 'postgres://shoal:secret@127.0.0.1:1/calls';
    await expect(openCallRecords({ database: unreachable }, () => {})).rejects.toThrow(/^cannot keep call records in postgres:\/\/shoal@127\.0\.0\.1:1\/calls: .*ECONNREFUSED.* \(check --database/);
  });
});
