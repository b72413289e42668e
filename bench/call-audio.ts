/**
 * The cost of recording a call's audio (`--record-audio`): prints one JSON object.
 * One phone call on a virtual clock: 8 kHz caller audio in 20 ms frames, the agent speaking half the time at
 * 16 kHz with a barge-in each minute, encoded as it goes into stereo Ogg Opus. Reports the recorder's CPU ms per
 * call-minute (the encoding included) and the file's bytes per call-minute. With --postgres the recording goes to
 * a throwaway PostgreSQL (fsync on) as `--database` keeps it: rows and table bytes per call-minute, and the round
 * trips' latency.
 * Run: npx tsx bench/call-audio.ts [--quick] [--postgres]   (--quick: one call-minute, else five)
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFrame } from '../src/audio/index.js';
import { CallRecording, type RecordingWriter } from '../src/agent/index.js';
import { PgCallStore } from '../src/agent/records/pg-call-store.js';
import { VirtualClock } from '../src/pipeline/index.js';
import { startPgCluster } from '../test/support/pg-cluster.js';

const minutes = process.argv.includes('--quick') ? 1 : 5;
const postgres = process.argv.includes('--postgres') ? await startPgCluster({ durable: true }) : undefined;
const database = postgres ? await postgres.createDatabase() : undefined;
const store = database ? await PgCallStore.open(database) : undefined;
const voice = (ms: number, rate: number, seed: number) => {
  const samples = new Int16Array((ms * rate) / 1000);
  for (let i = 0; i < samples.length; i++) {
    const t = i / rate;
    samples[i] = Math.round(6000 * Math.sin(2 * Math.PI * (140 + 30 * Math.sin(t * 3 + seed)) * t) + 2000 * Math.sin(2 * Math.PI * 900 * t));
  }
  return samples;
};

const dir = await mkdtemp(join(tmpdir(), 'shoal-bench-audio-'));
const path = join(dir, 'call.ogg');
const clock = new VirtualClock();
const callerSpeech = voice(20, 8000, 1);
const agentSpeech = voice(100, 16000, 2);
const before = process.cpuUsage();
const wallStart = performance.now();
const fail = (error: unknown) => {
  throw error;
};
const to: string | RecordingWriter = store ? store.recordings.open('bench-call', fail) : path;
const recording = new CallRecording(to, clock, fail);
const totalMs = minutes * 60_000;
for (let t = 0; t < totalMs; t += 20) {
  clock.advanceTo(t + 20);
  const inCycle = t % 10_000;
  recording.heard(createFrame(inCycle < 5000 ? callerSpeech : new Int16Array(160), 8000));
  // The agent answers for 5 s of every 10, queued 100 ms at a time as playout hands it over.
  if (inCycle >= 5000 && t % 100 === 0) recording.played(createFrame(agentSpeech, 16000));
  if (t % 60_000 === 59_000) recording.cleared();
  // Let the writes run as they would between the call's frames.
  if (t % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
}
await recording.end();
const cpu = process.cpuUsage(before);
const wallMs = performance.now() - wallStart;
const bytes = store ? (await store.recordings.size('bench-call'))! : (await stat(path)).size;
let stored: Record<string, unknown> = { storedIn: 'file' };
if (store && postgres) {
  const pg = await import('pg');
  const client = new pg.default.Client(database);
  await client.connect();
  const { rows } = await client.query<{ pieces: number; table: string }>(
    "SELECT COUNT(*)::int AS pieces, pg_total_relation_size('call_recordings')::text AS table FROM call_recordings",
  );
  await client.end();
  stored = { storedIn: 'postgres (fsync on)', rowsPerCallMinute: Math.round(rows[0]!.pieces / minutes), tableBytesPerCallMinute: Math.round(Number(rows[0]!.table) / minutes) };
  await store.close();
  await postgres.close();
}
await rm(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    ...stored,
    callMinutes: minutes,
    cpuMsPerCallMinute: Math.round((cpu.user + cpu.system) / 1000 / minutes),
    cpuShareOfOneCore: Math.round(((cpu.user + cpu.system) / 1000 / (totalMs)) * 10000) / 100 + ' %',
    wallMsPerCallMinute: Math.round(wallMs / minutes),
    bytesPerCallMinute: Math.round(bytes / minutes),
    format: 'Ogg Opus, stereo 16 kHz, 24 kb/s, complexity 2',
  }),
);
