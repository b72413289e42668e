/** Call records: every call kept as it goes, redacted before it is written, listed by the API and the CLI. */
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { of, type Observable } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { redactText, redactValue, SqliteCallStore, type Dialogue, type DialogueOutput } from '../../src/agent/index.js';
import { callRecordsApi, openCallRecords, parseAge } from '../../src/cli/call-records.js';
import { virtualCall } from '../support/agent-virtual-call.js';

const root = join(import.meta.dirname, '../..');
const stores: SqliteCallStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
async function newStore(): Promise<{ store: SqliteCallStore; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'shoal-calls-'));
  const store = new SqliteCallStore(dir);
  stores.push(store);
  return { store, dir };
}

/** Answers every turn with a tool call (a card number in its arguments) and a line with digits in it. */
class ToolDialogue implements Dialogue {
  readonly name = 'tool-desk';
  greeting() {
    return 'Hello.';
  }
  respond(): Observable<DialogueOutput> {
    return of<DialogueOutput[]>(
      { type: 'tool-call', id: 'c1', name: 'charge', arguments: { card: '4111 1111 1111 1111', email: 'jane@example.com' }, result: { ok: true, ref: 'AB12' } },
      { type: 'text', delta: 'Your code is six three nine, 639.' },
    );
  }
}

describe('a call record', () => {
  it('keeps the turns, the tool calls and how the call ended, timed on the call clock', async () => {
    const { store } = await newStore();
    const { summary } = await virtualCall({ records: { store, flushEveryMs: 10 } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const page = await store.list({});
    expect(page.calls).toHaveLength(1);
    const record = (await store.get(page.calls[0]!.id))!;
    expect(record).toMatchObject({ agent: 'fixed', mode: 'balanced', transport: { kind: 'file' }, finished: true, endedBy: summary.reason, traceId: summary.traceId });
    const turns = record.entries.filter((entry) => entry.kind === 'turn');
    expect(turns.map((turn) => turn.kind === 'turn' && [turn.turn, turn.userText, turn.agentText])).toEqual(summary.turns.map((turn) => [turn.turn, turn.userText, turn.agentText]));
    // Entries are timed on the call's clock: each turn after the one before, within the call.
    const times = turns.map((turn) => turn.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)!).toBeLessThanOrEqual(Math.round(summary.durationMs));
    expect(page.calls[0]).toMatchObject({ turns: summary.turns.length, failedTools: 0 });
  });

  it('masks digits, cards and e-mails in what was said and in tool arguments before writing them', async () => {
    const { store } = await newStore();
    await virtualCall({ dialogue: new ToolDialogue(), records: { store, redact: ['cards', 'emails', 'digits'], flushEveryMs: 10 } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const record = (await store.get((await store.list({})).calls[0]!.id))!;
    const tool = record.entries.find((entry) => entry.kind === 'tool');
    expect(tool).toMatchObject({ name: 'charge', arguments: { card: '[card]', email: '[email]' }, result: { ok: true, ref: 'AB##' } });
    const turn = record.entries.find((entry) => entry.kind === 'turn' && entry.agentText.includes('code'));
    expect(turn).toMatchObject({ agentText: 'Your code is # # #, ###.' });
    // Every string kept (the figures are numbers, and may hold any digits).
    const strings = JSON.stringify(record.entries, (_key, value: unknown) => (typeof value === 'number' ? undefined : value));
    expect(strings).not.toMatch(/4111|jane@|six three nine|639/);
  });

  it('redacts number words, spoken e-mails and spaced card numbers', () => {
    expect(redactText('my pin is four one nine two', ['digits'])).toBe('my pin is # # # #');
    expect(redactText('card 4111-1111-1111-1111 ok', ['cards'])).toBe('card [card] ok');
    const spoken = 'four one one one one one one one one one one one one one one one';
    expect(redactText(`it is ${spoken}`, ['cards'])).toBe('it is [card]');
    expect(redactText('write to jane dot doe at example dot com', ['emails'])).toBe('write to jane dot [email]');
    expect(redactText('write to jane at example dot com please', ['emails'])).toBe('write to [email] please');
    expect(redactValue({ n: 639, list: ['call 555'] }, ['digits'])).toEqual({ n: '###', list: ['call ###'] });
    expect(redactText('nothing to hide', ['digits', 'cards', 'emails'])).toBe('nothing to hide');
  });

  it('is left unfinished, with what happened so far, by a process killed mid-call', async () => {
    const { store, dir } = await newStore();
    const script = join(dir, 'killed-mid-call.mts');
    await writeFile(
      script,
      `import { recordCall, SqliteCallStore } from ${JSON.stringify(join(root, 'src/agent/index.ts'))};
      const store = new SqliteCallStore(process.argv[2]);
      let emit;
      const events$ = { subscribe: (next) => void (emit = next) };
      const facts = { id: 'killed-call', agent: 'a', mode: 'balanced', transport: { kind: 'phone', carrier: 'twilio' }, clock: { now: () => performance.now() } };
      recordCall({ store, flushEveryMs: 10 }, { events$, traceId: 'trace-1' }, facts);
      emit({ type: 'turn-metrics', report: { turn: 1, userText: 'hello', agentText: 'hi there', interrupted: false, metrics: { interrupted: false } } });
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 200);`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script, dir], { cwd: root, stdio: 'ignore' });
    const signal = await new Promise((resolve) => child.once('exit', (_code, sig) => resolve(sig)));
    expect(signal).toBe('SIGKILL');
    const record = await store.get('killed-call');
    expect(record).toMatchObject({ finished: false, transport: { kind: 'phone', carrier: 'twilio' } });
    expect(record!.endedAt).toBeUndefined();
    expect(record!.entries).toMatchObject([{ kind: 'turn', userText: 'hello', agentText: 'hi there' }]);
  });

  it('are deleted past --keep-calls', async () => {
    const { store, dir } = await newStore();
    await store.begin({ id: 'old', traceId: 't', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, startedAt: new Date(Date.now() - 3 * 86_400_000).toISOString() });
    await store.begin({ id: 'new', traceId: 't', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, startedAt: new Date().toISOString() });
    const opened = (await openCallRecords({ dataDir: dir, keepCalls: '2d' }, () => {}))!;
    await opened.close();
    expect((await store.list({})).calls.map((call) => call.id)).toEqual(['new']);
    expect(parseAge('90m')).toBe(5_400_000);
    expect(() => parseAge('a month')).toThrow(/30d, 12h or 90m/);
  });
});

describe('the call records API', () => {
  async function serve(accessToken: string | undefined) {
    const { store } = await newStore();
    const { createServer } = await import('node:http');
    const api = callRecordsApi(store, accessToken);
    const server = createServer((request, response) => {
      if (!api(request, response)) response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    return { store, url, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('is refused without the access token, on every address, and without one configured', async () => {
    const open = await serve(undefined);
    expect((await fetch(`${open.url}/api/calls`)).status).toBe(403);
    await open.close();
    const guarded = await serve('secret');
    expect((await fetch(`${guarded.url}/api/calls`)).status).toBe(401);
    expect((await fetch(`${guarded.url}/api/calls`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${guarded.url}/api/calls?access_token=secret`)).status).toBe(200);
    await guarded.close();
  });

  it('lists with filters and pages, and gives one whole record', async () => {
    const { store, url, close } = await serve('secret');
    const auth = { authorization: 'Bearer secret' };
    const turn = (ms: number, userText: string) => ({ kind: 'turn' as const, atMs: 0, turn: 1, userText, agentText: 'ok', interrupted: false, metrics: { interrupted: false, voiceToVoiceMs: ms } });
    for (let i = 0; i < 3; i++) {
      const id = `call-${i}`;
      await store.begin({ id, traceId: `t${i}`, agent: 'a', mode: 'balanced', transport: { kind: 'phone', from: i === 1 ? '+14155550100' : '+14155550199' }, startedAt: `2026-11-28T1${i}:00:00.000Z` });
      await store.append(id, [turn(300 + i * 500, i === 2 ? 'I want a refund' : 'hello')]);
      if (i === 0) await store.append(id, [{ kind: 'tool', atMs: 1, name: 'refund', arguments: {}, error: 'timeout' }]);
      await store.end(id, { endedAt: `2026-11-28T1${i}:05:00.000Z`, endedBy: i === 0 ? 'agent ended the call' : 'caller hung up', durationMs: 300_000 });
    }
    const list = async (query: string) => ((await (await fetch(`${url}/api/calls${query}`, { headers: auth })).json()) as { calls: Array<{ id: string }>; next?: string });
    expect((await list('')).calls.map((call) => call.id)).toEqual(['call-2', 'call-1', 'call-0']);
    expect((await list('?q=refund')).calls.map((call) => call.id)).toEqual(['call-2', 'call-0']);
    expect((await list('?slow_ms=700')).calls.map((call) => call.id)).toEqual(['call-2', 'call-1']);
    expect((await list('?failed_tools=true')).calls.map((call) => call.id)).toEqual(['call-0']);
    expect((await list('?from=%2B14155550100')).calls.map((call) => call.id)).toEqual(['call-1']);
    expect((await list('?ended_by=agent')).calls.map((call) => call.id)).toEqual(['call-0']);
    expect((await list('?since=2026-11-28T11:00:00Z')).calls.map((call) => call.id)).toEqual(['call-2', 'call-1']);
    const first = await list('?limit=2');
    expect(first.calls.map((call) => call.id)).toEqual(['call-2', 'call-1']);
    expect((await list(`?limit=2&before=${encodeURIComponent(first.next!)}`)).calls.map((call) => call.id)).toEqual(['call-0']);
    const bad = await fetch(`${url}/api/calls?slow_ms=fast`, { headers: auth });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ message: expect.stringMatching(/slow_ms must be a number/) });
    const one = await fetch(`${url}/api/calls/call-0`, { headers: auth });
    expect(await one.json()).toMatchObject({ id: 'call-0', finished: true, endedBy: 'agent ended the call', entries: [{ kind: 'turn' }, { kind: 'tool', error: 'timeout' }] });
    expect((await fetch(`${url}/api/calls/nope`, { headers: auth })).status).toBe(404);
    await close();
  });
});
