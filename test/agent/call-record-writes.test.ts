/** Call record writes: kept and retried while the store fails, spooled past the bound and at close, replayed once. */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/pipeline/index.js';
import { CallSpool, CallWriteQueue, recordCall, SqliteCallStore, type AgentEvent, type CallEntry, type CallRecordStore } from '../../src/agent/index.js';

/** The SQLite store, whose writes throw while `down` (as a locked or full file does). */
class FailingStore {
  down = false;
  readonly inner: SqliteCallStore;
  constructor(dir: string) {
    this.inner = new SqliteCallStore(dir);
  }
  get store(): CallRecordStore {
    const guard = <A extends unknown[]>(write: (...args: A) => Promise<void>) => async (...args: A) => {
      if (this.down) throw new Error('SQLITE_BUSY: database is locked');
      return write(...args);
    };
    const inner = this.inner;
    return {
      begin: guard((record) => inner.begin(record)),
      append: guard((id: string, entries: readonly CallEntry[], first?: number) => inner.append(id, entries, first)),
      end: guard((id, end) => inner.end(id, end)),
      get: (id) => inner.get(id),
      list: (query) => inner.list(query),
      deleteBefore: (before) => inner.deleteBefore(before),
      close: () => inner.close(),
    };
  }
}

const turnEvent = (turn: number): AgentEvent =>
  ({ type: 'turn-metrics', report: { turn, userText: `caller ${turn}`, agentText: `agent ${turn}`, interrupted: false, metrics: { interrupted: false } } }) as AgentEvent;
const hangup = { type: 'hangup', reason: 'caller hung up', summary: { durationMs: 3000 } } as unknown as AgentEvent;

async function setUp(queueOptions: { maxQueued?: number; closeWaitMs?: number } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'shoal-writes-'));
  const failing = new FailingStore(dir);
  const spool = new CallSpool(join(dir, 'calls-spool.jsonl'));
  const warnings: string[] = [];
  const writes = new CallWriteQueue(failing.store, { ...queueOptions, spool, log: { warn: (_details, message) => warnings.push(message) } });
  const call = (id: string) => {
    const events$ = new Subject<AgentEvent>();
    recordCall({ store: failing.store, writes, flushEveryMs: 10 }, { events$, traceId: `trace-${id}` }, { id, agent: 'a', mode: 'balanced', transport: { kind: 'file' }, clock: systemClock });
    return events$;
  };
  return { dir, failing, spool, writes, warnings, call };
}

const turnsOf = async (store: CallRecordStore, id: string) => (await store.get(id))?.entries.map((entry) => (entry.kind === 'turn' ? entry.turn : entry.kind));

afterEach(() => {
  vi.useRealTimers();
});

describe('call record writes', () => {
  it('are kept while the store fails, retried with backoff, and written whole and once when it recovers', async () => {
    vi.useFakeTimers();
    const { failing, writes, warnings, call } = await setUp();
    const events$ = call('c1');
    events$.next(turnEvent(1));
    await vi.advanceTimersByTimeAsync(20);
    expect(await turnsOf(failing.inner, 'c1')).toEqual([1]);
    failing.down = true;
    events$.next(turnEvent(2));
    await vi.advanceTimersByTimeAsync(20);
    events$.next(turnEvent(3));
    events$.next(hangup);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(writes.queued).toBe(3);
    expect(warnings).toEqual(['call records: writes are failing; they are kept and retried']);
    failing.down = false;
    // The backoff has grown to seconds: the next try comes within its longest wait.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(writes.queued).toBe(0);
    expect(warnings.at(-1)).toBe('call records: writes recovered');
    expect(warnings).toHaveLength(2);
    const record = await failing.inner.get('c1');
    expect(record).toMatchObject({ finished: true, endedBy: 'caller hung up' });
    expect(await turnsOf(failing.inner, 'c1')).toEqual([1, 2, 3]);
    expect((await failing.inner.list({})).calls[0]).toMatchObject({ turns: 3 });
    await writes.close();
    await failing.inner.close();
  });

  it('go to the spool past the bound and at close, in order, and are replayed at the next start exactly once', async () => {
    vi.useFakeTimers();
    const { dir, failing, spool, writes, call } = await setUp({ maxQueued: 2, closeWaitMs: 100 });
    failing.down = true;
    const first = call('c1');
    const second = call('c2');
    for (const turn of [1, 2, 3]) {
      first.next(turnEvent(turn));
      second.next(turnEvent(turn));
      await vi.advanceTimersByTimeAsync(20);
    }
    first.next(hangup);
    // The end is written once the call's recogniser is released (here at once).
    await vi.advanceTimersByTimeAsync(0);
    // c1's writes overflowed the bound first: they, and the ones after, are in the spool, in order.
    expect(writes.queued).toBeLessThanOrEqual(2);
    const spooled = () => readFileSync(spool.path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { op: string; callId: string });
    expect(spooled().filter((write) => write.callId === 'c1').map((write) => write.op)).toEqual(['begin', 'append', 'append', 'append', 'end']);
    const closing = writes.close();
    await vi.advanceTimersByTimeAsync(200);
    await closing;
    expect(writes.queued).toBe(0);
    expect(spooled().filter((write) => write.callId === 'c2').map((write) => write.op)).toEqual(['begin', 'append', 'append', 'append']);
    // A write already in the store (a write that succeeded but reported failing) is in the spool too.
    failing.down = false;
    await failing.inner.begin({ id: 'c2', traceId: 'trace-c2', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, startedAt: new Date().toISOString() });
    await failing.inner.append('c2', [{ kind: 'keypad', atMs: 1, digits: 'x' }], 0);
    vi.useRealTimers();
    const next = new SqliteCallStore(dir);
    expect(await spool.replay(next)).toEqual({ replayed: 9, kept: 0, unreadable: 0 });
    expect(existsSync(spool.path)).toBe(false);
    expect(await turnsOf(next, 'c1')).toEqual([1, 2, 3]);
    expect(await next.get('c1')).toMatchObject({ finished: true });
    // c2's first entry was in the store already: kept once, its batch's figures counted once.
    expect(await turnsOf(next, 'c2')).toEqual(['keypad', 2, 3]);
    expect((await next.list({})).calls.find((summary) => summary.id === 'c2')).toMatchObject({ turns: 2, finished: false });
    await next.close();
    await failing.inner.close();
  });

  it('replay keeps what the store still refuses, for the next start, and goes on with the other calls', async () => {
    const { failing, spool } = await setUp();
    const record = (id: string) => ({ id, traceId: 't', agent: 'a', mode: 'balanced', transport: { kind: 'file' as const }, startedAt: new Date().toISOString() });
    spool.add([
      { op: 'begin', callId: 'bad', record: record('bad') },
      { op: 'append', callId: 'orphan', firstSeq: 0, entries: [{ kind: 'keypad', atMs: 1, digits: '1' }] },
      { op: 'begin', callId: 'good', record: record('good') },
      { op: 'append', callId: 'orphan', firstSeq: 1, entries: [{ kind: 'keypad', atMs: 2, digits: '2' }] },
    ]);
    // An entry of a call with no row breaks the foreign key: that call's writes stay, the others are written.
    const next = failing.inner;
    expect(await spool.replay(next)).toEqual({ replayed: 2, kept: 2, unreadable: 0 });
    expect(readFileSync(spool.path, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { callId: string; firstSeq: number }).firstSeq)).toEqual([0, 1]);
    expect((await next.list({})).calls.map((call) => call.id).sort()).toEqual(['bad', 'good']);
    await next.close();
  });
});
