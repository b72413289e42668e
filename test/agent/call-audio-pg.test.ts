/** Call recordings kept in PostgreSQL (`--database` with `--record-audio`): written as the call goes, served by any instance. */
import { createServer } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import { CallRecording } from '../../src/agent/index.js';
import { PgCallStore } from '../../src/agent/records/pg-call-store.js';
import { createFrame } from '../../src/audio/index.js';
import { callRecordsApi, openCallRecords } from '../../src/cli/call-records.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { virtualCall } from '../support/agent-virtual-call.js';
import { fleetCluster } from '../support/fleet-harness.js';

// The file's throwaway PostgreSQL, started before its tests and removed after them.
const cluster = fleetCluster();

/** An agent instance's call records on the shared database, and its records API on a port. */
async function instance(database: string, options: { keepCalls?: string } = {}) {
  const opened = (await openCallRecords({ database, dataDir: await mkdtemp(join(tmpdir(), 'shoal-audio-pg-')), recordAudio: true, ...options }, () => {}))!;
  const api = callRecordsApi(opened.store, 'secret', opened.recordings);
  const server = createServer((request, response) => {
    if (!api(request, response)) response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/calls`;
  const get = (path: string, range?: string) => fetch(`${url}${path}`, { headers: { authorization: 'Bearer secret', ...(range ? { range } : {}) } });
  return { opened, get, close: async () => (await new Promise((resolve) => server.close(resolve)), await opened.close()) };
}

/** Whether an Ogg stream's last page is its end (the end-of-stream flag): the recording is whole. */
function ended(bytes: Uint8Array): boolean {
  const last = Buffer.from(bytes).lastIndexOf('OggS');
  return last >= 0 && (bytes[last + 5]! & 0x04) !== 0;
}

async function rows(database: string, sql: string, values: unknown[] = []) {
  const client = new pg.Client(database);
  await client.connect();
  try {
    return (await client.query(sql, values)).rows;
  } finally {
    await client.end();
  }
}

describe('call recordings in PostgreSQL', () => {
  it("are written as the call goes, served whole and by range by another instance, and deleted with their record", async () => {
    const database = await cluster.createDatabase();
    const recorder = await instance(database);
    const other = await instance(database);
    // With --database the audio goes to PostgreSQL, not to the data folder.
    expect(recorder.opened.records.recordingsDir).toBeUndefined();
    const segments = [
      { atMs: 500, ms: 600, amplitude: 5000 },
      { atMs: 4000, ms: 700, amplitude: 8000 },
    ];
    await virtualCall({ records: { ...recorder.opened.records, flushEveryMs: 10 } }, segments, 8000);
    const id = await vi.waitFor(async () => {
      const [call] = (await other.opened.store.list({})).calls;
      expect(call?.finished).toBe(true);
      return call!.id;
    });
    const whole = await vi.waitFor(async () => {
      const response = await other.get(`/${id}/audio`);
      expect(response.status).toBe(200);
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(ended(bytes)).toBe(true);
      return bytes;
    }, { timeout: 10_000, interval: 100 });
    // Kept a second or so a row, as the call went.
    const [{ pieces }] = await rows(database, 'SELECT COUNT(*)::int AS pieces FROM call_recordings WHERE call_id = $1', [id]);
    expect(pieces).toBeGreaterThanOrEqual(5);
    // The whole call, the caller on the left: loud where the caller spoke.
    const decoder = new OggOpusDecoder();
    await decoder.ready;
    const { channelData, samplesDecoded, sampleRate } = await decoder.decodeFile(whole);
    decoder.free();
    expect(channelData).toHaveLength(2);
    expect(samplesDecoded / sampleRate).toBeGreaterThan(7);
    const rms = (fromMs: number, toMs: number) => {
      const part = channelData[0]!.subarray((fromMs * sampleRate) / 1000, (toMs * sampleRate) / 1000);
      return Math.sqrt(part.reduce((sum, value) => sum + value * value, 0) / part.length);
    };
    expect(rms(600, 1000)).toBeGreaterThan(0.05);
    expect(rms(2000, 3500)).toBeLessThan(0.01);
    const size = whole.length;
    for (const [range, start, end] of [['bytes=0-99', 0, 99], ['bytes=3000-9000', 3000, 9000], [`bytes=${size - 10}-`, size - 10, size - 1], ['bytes=-2500', size - 2500, size - 1]] as const) {
      for (const served of [other, recorder]) {
        const part = await served.get(`/${id}/audio`, range);
        expect([part.status, part.headers.get('content-range')]).toEqual([206, `bytes ${start}-${end}/${size}`]);
        expect(new Uint8Array(await part.arrayBuffer())).toEqual(whole.subarray(start, end + 1));
      }
    }
    expect((await other.get(`/${id}/audio`, `bytes=${size}-`)).status).toBe(416);
    expect(await (await other.get(`/${id}`)).json()).toMatchObject({ id, audio: `/api/calls/${id}/audio` });
    expect((await other.get('/no-such-call/audio')).status).toBe(404);

    // --keep-calls: an instance started with it deletes the old call and its recording.
    await rows(database, "UPDATE calls SET started_at = '2020-01-01T00:00:00.000Z' WHERE id = $1", [id]);
    const keeping = await instance(database, { keepCalls: '30d' });
    expect(await rows(database, 'SELECT call_id FROM call_recordings')).toEqual([]);
    expect((await other.get(`/${id}/audio`)).status).toBe(404);
    await Promise.all([recorder.close(), other.close(), keeping.close()]);
  }, 30_000);

  it('keep a call whole through a database restart mid-call: the failed writes are retried in order', async () => {
    const database = await cluster.createDatabase();
    const store = await PgCallStore.open(database, { onError: () => {} });
    const errors: unknown[] = [];
    const clock = new VirtualClock();
    const recording = new CallRecording(store.recordings.open('restarted', (error) => errors.push(error)), clock);
    const speak = async (fromMs: number, toMs: number) => {
      for (let t = fromMs; t < toMs; t += 20) {
        clock.advanceTo(t + 20);
        recording.heard(createFrame(new Int16Array(160).fill(3000), 8000));
        if (t % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await speak(0, 3000);
    await vi.waitFor(async () => expect(await store.recordings.size('restarted')).toBeGreaterThan(1000));
    await cluster.stop();
    try {
      await speak(3000, 6000);
      await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), { timeout: 5_000 });
    } finally {
      await cluster.start();
    }
    await recording.end();
    expect(errors).toHaveLength(1);
    const size = (await store.recordings.size('restarted'))!;
    const chunks: Buffer[] = [];
    for await (const chunk of store.recordings.read('restarted', 0, size - 1)) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    expect(ended(bytes)).toBe(true);
    // Every page once and in order: the decoder checks each page and the stream's length.
    const decoder = new OggOpusDecoder();
    await decoder.ready;
    const { samplesDecoded, sampleRate, errors: decodeErrors } = await decoder.decodeFile(bytes);
    decoder.free();
    expect(decodeErrors).toEqual([]);
    expect(Math.abs(samplesDecoded / sampleRate - 6)).toBeLessThan(0.1);
    await store.close();
  }, 30_000);
});
