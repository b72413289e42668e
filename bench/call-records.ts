/**
 * What keeping call records costs a call, as JSON:
 * - `writes`: each store's write times (ms, p50/p99): a call's row (`begin`), a batch of 1 and of 8 entries
 *   (`append`; per entry too), the end (`end`). SQLite writes block the event loop for that long; PostgreSQL ones
 *   are a round trip off it.
 * - `recorder_event_us`: the recorder's work on the call's own path per event (making the entry, redacting it
 *   with all three kinds, queueing it), p50/p99 in microseconds.
 * - `calls`: after a warm-up, the same concurrent real-time calls (the test doubles' engines, a 4 s caller with two utterances)
 *   with records off, in SQLite and in PostgreSQL: voice-to-voice p50/p99 of their turns, turns unanswered, and
 *   CPU ms per call-second; `v2v_p50_added_ms`: each store's p50 less that of the runs without records.
 * Run with `npx tsx bench/call-records.ts [--calls N] [--writes N]` (PostgreSQL from `scripts/setup.sh --test`).
 * Default: 10 calls at once and 100 writes of each kind, about a minute (mostly PostgreSQL starting and its fsyncs).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Subject } from 'rxjs';
import { CallWriteQueue, recordCall, SqliteCallStore, VoiceAgent, type AgentEvent, type CallEntry, type CallRecordStore, type CallRecords } from '../src/agent/index.js';
import { PgCallStore } from '../src/agent/records/pg-call-store.js';
import { systemClock } from '../src/pipeline/index.js';
import { FileTransport } from '../src/transports/file/file-transport.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, ToneTts } from '../test/support/agent-doubles.js';
import { startPgCluster } from '../test/support/pg-cluster.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '10' }, writes: { type: 'string', default: '100' } } });
const concurrentCalls = Number(values.calls);
const writes = Number(values.writes);
const caller = { totalMs: 4000, segments: [{ atMs: 300, ms: 600, amplitude: 5000 }, { atMs: 2000, ms: 700, amplitude: 8000 }] };

function percentile(samples: readonly number[], p: number): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 1000) / 1000;
}
const spread = (samples: readonly number[]) => ({ p50: percentile(samples, 50), p99: percentile(samples, 99) });

const entry = (index: number): CallEntry => ({
  kind: 'turn',
  atMs: index * 1000,
  turn: index,
  userText: 'I would like to book a table for four at seven tonight',
  agentText: 'Of course. A table for four at seven. May I have a name for the booking?',
  interrupted: false,
  metrics: { interrupted: false, voiceToVoiceMs: 640, endOfSpeechToFinalMs: 120, dialogueFirstTokenMs: 210, ttsFirstAudioMs: 90 },
});

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function writeTimes(store: CallRecordStore) {
  const begin: number[] = [];
  const one: number[] = [];
  const eight: number[] = [];
  const end: number[] = [];
  const batch = Array.from({ length: 8 }, (_, index) => entry(index + 2));
  for (let i = 0; i < writes; i++) {
    const id = `bench-${i}`;
    begin.push(await timed(() => store.begin({ id, traceId: 't'.repeat(32), agent: 'bench', mode: 'balanced', transport: { kind: 'phone', carrier: 'twilio', from: '+14155550100' }, startedAt: new Date().toISOString() })));
    one.push(await timed(() => store.append(id, [entry(1)])));
    eight.push(await timed(() => store.append(id, batch)));
    end.push(await timed(() => store.end(id, { endedAt: new Date().toISOString(), endedBy: 'caller hung up', durationMs: 60_000 })));
  }
  return { begin_ms: spread(begin), append_1_ms: spread(one), append_8_ms: spread(eight), append_per_entry_ms: spread(eight.map((ms) => ms / 8)), end_ms: spread(end) };
}

/** The recorder's own work per event on the call's path, with a store that keeps nothing. */
function recorderEventMicros(): { p50: number | null; p99: number | null } {
  const idle: CallRecordStore = { begin: async () => {}, append: async () => {}, end: async () => {}, get: async () => undefined, list: async () => ({ calls: [] }), deleteBefore: async () => 0, close: async () => {} };
  const events$ = new Subject<AgentEvent>();
  recordCall({ store: idle, redact: ['digits', 'cards', 'emails'], flushEveryMs: 60_000 }, { events$, traceId: 't' }, { id: 'c', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, clock: systemClock });
  const samples: number[] = [];
  for (let i = 0; i < writes * 10; i++) {
    const { turn, userText, agentText, interrupted, metrics } = entry(i) as Extract<CallEntry, { kind: 'turn' }>;
    const event = { type: 'turn-metrics', report: { turn, userText, agentText, interrupted, metrics } } as AgentEvent;
    const started = performance.now();
    events$.next(event);
    samples.push((performance.now() - started) * 1000);
  }
  return spread(samples);
}

/** `concurrentCalls` real-time calls at once; their turns' voice-to-voice, unanswered turns and CPU per call-second. */
async function calls(records: CallRecords | undefined) {
  const agent = new VoiceAgent({
    dialogue: new FixedDialogue((input) => `you said ${input.userText}.`, 'Hi there.'),
    stt: new AmplitudeStt(),
    tts: new ToneTts(),
    vad: () => new EnergyVad(),
    mode: 'balanced',
    clock: systemClock,
    ...(records ? { records } : {}),
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  const summaries = await Promise.all(
    Array.from({ length: concurrentCalls }, () => {
      const transport = new FileTransport(callerTrack(caller.totalMs, caller.segments), systemClock, { maxTailMs: 10_000 });
      return agent.handle(transport).summary;
    }),
  );
  await records?.writes?.settled();
  const used = process.cpuUsage(cpu);
  const callSeconds = summaries.reduce((sum, summary) => sum + summary.durationMs / 1000, 0);
  const turns = summaries.flatMap((summary) => summary.turns.filter((turn) => turn.userText));
  const v2v = turns.map((turn) => turn.metrics.voiceToVoiceMs).filter((ms): ms is number => ms !== undefined);
  return {
    turns: turns.length,
    unanswered: turns.filter((turn) => !turn.agentText).length + (concurrentCalls * caller.segments.length - turns.length),
    voice_to_voice_ms: spread(v2v),
    cpu_ms_per_call_second: Math.round(((used.user + used.system) / 1000 / callSeconds) * 100) / 100,
    wall_s: Math.round(performance.now() - started) / 1000,
  };
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'shoal-bench-records-'));
  // Durable: PostgreSQL's default fsync and synchronous commit, as a deployment runs it.
  const cluster = await startPgCluster({ durable: true });
  try {
    const sqlite = new SqliteCallStore(join(dir, 'writes'));
    const pgStore = await PgCallStore.open(await cluster.createDatabase());
    const result = {
      bench: 'call-records',
      cores: availableParallelism(),
      load_1m: Math.round(loadavg()[0]! * 100) / 100,
      writes_each: writes,
      writes: { sqlite: await writeTimes(sqlite), postgres: await writeTimes(pgStore) },
      recorder_event_us: recorderEventMicros(),
      concurrent_calls: concurrentCalls,
      calls: {} as Record<string, Awaited<ReturnType<typeof calls>>>,
    };
    await sqlite.close();
    await pgStore.close();
    await calls(undefined); // warm-up: the first calls of a process pay for compiling the code paths
    result.calls['off'] = await calls(undefined);
    const stores: Array<[string, CallRecordStore]> = [
      ['sqlite', new SqliteCallStore(join(dir, 'calls'))],
      ['postgres', await PgCallStore.open(await cluster.createDatabase())],
    ];
    for (const [name, store] of stores) {
      result.calls[name] = await calls({ store, writes: new CallWriteQueue(store, { log: { warn: (details, message) => console.error(message, details) } }) });
      await store.close();
    }
    result.calls['off_again'] = await calls(undefined);
    const offP50 = ((result.calls['off'].voice_to_voice_ms.p50 ?? 0) + (result.calls['off_again'].voice_to_voice_ms.p50 ?? 0)) / 2;
    const added = Object.fromEntries(['sqlite', 'postgres'].map((name) => [name, Math.round(((result.calls[name]!.voice_to_voice_ms.p50 ?? 0) - offP50) * 10) / 10]));
    Object.assign(result, { v2v_p50_added_ms: added });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await cluster.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
