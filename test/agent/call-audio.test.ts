/** Call audio: the caller and the agent as one stereo Ogg Opus file per call, on the call's clock. */
import { createServer } from 'node:http';
import { mkdir, mkdtemp, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import { describe, expect, it } from 'vitest';
import { createFrame, decodeOggOpus } from '../../src/audio/index.js';
import { CallRecording, SqliteCallStore } from '../../src/agent/index.js';
import { callerTrack } from '../support/agent-doubles.js';
import { callRecordsApi, openCallRecords } from '../../src/cli/call-records.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { virtualCall } from '../support/agent-virtual-call.js';

/** Each side's loudness per 100 ms window (RMS), from a stereo file. */
async function envelopes(bytes: Uint8Array): Promise<{ left: number[]; right: number[] }> {
  const decoder = new OggOpusDecoder();
  await decoder.ready;
  try {
    const { channelData, samplesDecoded, sampleRate } = await decoder.decodeFile(bytes);
    expect(channelData).toHaveLength(2);
    const window = sampleRate / 10;
    const rms = (channel: Float32Array) =>
      Array.from({ length: Math.floor(samplesDecoded / window) }, (_, w) => {
        let sum = 0;
        for (let i = w * window; i < (w + 1) * window; i++) sum += channel[i]! ** 2;
        return Math.sqrt(sum / window);
      });
    return { left: rms(channelData[0]!), right: rms(channelData[1]!) };
  } finally {
    decoder.free();
  }
}

const tone = (ms: number, rate: number, amplitude = 8000) => {
  const samples = new Int16Array((ms * rate) / 1000);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(amplitude * Math.sin((2 * Math.PI * 300 * i) / rate));
  return samples;
};
const loud = (values: number[]) => values.map((value) => (value > 0.05 ? 1 : 0)).join('');

describe('a call recording', () => {
  it('puts the caller left and the agent right on the call clock, and cuts the agent at a barge-in', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shoal-audio-'));
    const clock = new VirtualClock();
    const audio = new CallRecording(join(dir, 'call.ogg'), clock, (error) => console.error(error));
    // The caller: a phone line's 8 kHz, 20 ms frames; speaking 0-1 s, quiet until 3 s.
    const speech = tone(1000, 8000);
    for (let t = 0; t < 3000; t += 20) {
      clock.advanceTo(t + 20);
      const slice = t < 1000 ? speech.subarray((t * 8000) / 1000, ((t + 20) * 8000) / 1000) : new Int16Array(160);
      audio.heard(createFrame(slice, 8000));
      // The agent queues 2 s of 16 kHz audio at 1.5 s; the caller barges in at 2.5 s.
      if (t + 20 === 1500) for (let i = 0; i < 20; i++) audio.played(createFrame(tone(100, 16000), 16000));
      if (t + 20 === 2500) audio.cleared();
    }
    // Written as the call goes: what is on disk before the end is already a file that plays.
    let partial = await readFile(join(dir, 'call.ogg'));
    for (let tries = 0; tries < 50 && partial.length < 1000; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      partial = await readFile(join(dir, 'call.ogg'));
    }
    expect((await decodeOggOpus(partial)).samples.length).toBeGreaterThan(16000 * 1.5);
    await audio.end();
    const { left, right } = await envelopes(await readFile(join(dir, 'call.ogg')));
    expect(left).toHaveLength(30);
    expect(loud(left)).toBe('1'.repeat(10) + '0'.repeat(20));
    expect(loud(right)).toBe('0'.repeat(15) + '1'.repeat(10) + '0'.repeat(5));
  });

  it('of a whole call matches what the caller said and what the agent played', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shoal-audio-'));
    const store = new SqliteCallStore(dir);
    const segments = [
      { atMs: 500, ms: 600, amplitude: 5000 },
      { atMs: 4000, ms: 700, amplitude: 8000 },
    ];
    const { track } = await virtualCall({ records: { store, recordingsDir: join(dir, 'recordings') } }, segments, 8000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [id] = (await store.list({})).calls.map((call) => call.id);
    expect(await readdir(join(dir, 'recordings'))).toEqual([`${id}.ogg`]);
    // Each answered turn says when the caller began the words it answers: where a click on it seeks the audio.
    // (The caller's speech is known once voice activity detection has heard enough of it: up to 150 ms in.)
    const starts = (await store.get(id!))!.entries.flatMap((entry) => (entry.kind === 'turn' && entry.userText !== '' ? [entry.startedAtMs ?? 0] : []));
    expect(starts).toHaveLength(2);
    expect(starts[0]! - 500).toBeGreaterThanOrEqual(0);
    expect(starts[0]! - 500).toBeLessThanOrEqual(150);
    expect(starts[1]! - 4000).toBeGreaterThanOrEqual(0);
    expect(starts[1]! - 4000).toBeLessThanOrEqual(150);
    const { left, right } = await envelopes(await readFile(join(dir, 'recordings', `${id}.ogg`)));
    const windows = (samples: Int16Array) =>
      Array.from({ length: left.length }, (_, w) => {
        let sum = 0;
        for (let i = w * 1600; i < Math.min(samples.length, (w + 1) * 1600); i++) sum += (samples[i]! / 32768) ** 2;
        return Math.sqrt(sum / 1600);
      });
    const agreement = (a: string, b: string) => [...a].filter((c, i) => c === b[i]).length / a.length;
    expect(agreement(loud(left), loud(windows(callerTrack(8000, segments).samples)))).toBeGreaterThanOrEqual(0.95);
    expect(loud(right)).toContain('1');
    expect(agreement(loud(right), loud(windows(track)))).toBeGreaterThanOrEqual(0.95);
    await store.close();
  });
});

describe('recordings through the call records API', () => {
  async function serve() {
    const dir = await mkdtemp(join(tmpdir(), 'shoal-audio-api-'));
    const store = new SqliteCallStore(dir);
    const recordings = join(dir, 'recordings');
    await mkdir(recordings);
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);
    await store.begin({ id: 'c1', traceId: 't', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, startedAt: new Date().toISOString() });
    await writeFile(join(recordings, 'c1.ogg'), bytes);
    const api = callRecordsApi(store, 'secret', recordings);
    const server = createServer((request, response) => {
      if (!api(request, response)) response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/calls`;
    const get = (path: string, range?: string) => fetch(`${url}${path}`, { headers: { authorization: 'Bearer secret', ...(range ? { range } : {}) } });
    return { get, url, bytes, close: async () => (await new Promise((resolve) => server.close(resolve)), await store.close()) };
  }

  it('serves a recording whole or by byte range, behind the token', async () => {
    const { get, url, bytes, close } = await serve();
    expect((await fetch(`${url}/c1/audio`)).status).toBe(401);
    const whole = await get('/c1/audio');
    expect([whole.status, whole.headers.get('content-type'), whole.headers.get('accept-ranges')]).toEqual([200, 'audio/ogg', 'bytes']);
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(bytes);
    for (const [range, start, end] of [['bytes=10-19', 10, 19], ['bytes=990-', 990, 999], ['bytes=-100', 900, 999], ['bytes=995-5000', 995, 999]] as const) {
      const part = await get('/c1/audio', range);
      expect([part.status, part.headers.get('content-range'), part.headers.get('content-length')]).toEqual([206, `bytes ${start}-${end}/1000`, String(end - start + 1)]);
      expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(start, end + 1));
    }
    for (const range of ['bytes=1000-', 'bytes=20-10', 'bytes=-0', 'lines=1-2', 'bytes=1-2,5-6']) {
      const refused = await get('/c1/audio', range);
      expect([range, refused.status, refused.headers.get('content-range')]).toEqual([range, 416, 'bytes */1000']);
      expect((await refused.json()) as { message: string }).toMatchObject({ message: expect.stringContaining('bytes=0-999') });
    }
    expect(await (await get('/c1')).json()).toMatchObject({ id: 'c1', audio: '/api/calls/c1/audio' });
    expect((await get('/nope/audio')).status).toBe(404);
    expect((await get('/..%2Fcalls.sqlite/audio')).status).toBe(404);
    expect((await get('/c1/other')).status).toBe(404);
    await close();
  });

  it('are deleted with their records past --keep-calls', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'shoal-audio-keep-'));
    const store = new SqliteCallStore(dataDir);
    const old = new Date(Date.now() - 40 * 86_400_000);
    await store.begin({ id: 'old', traceId: 't', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, startedAt: old.toISOString() });
    await store.begin({ id: 'new', traceId: 't', agent: 'a', mode: 'balanced', transport: { kind: 'file' }, startedAt: new Date().toISOString() });
    await store.close();
    await mkdir(join(dataDir, 'recordings'));
    for (const id of ['old', 'new', 'orphan', 'being-written']) await writeFile(join(dataDir, 'recordings', `${id}.ogg`), 'OggS');
    for (const id of ['old', 'new', 'orphan']) await utimes(join(dataDir, 'recordings', `${id}.ogg`), old, old);
    const opened = (await openCallRecords({ dataDir, keepCalls: '30d', recordAudio: true }, (error) => { throw error; }))!;
    expect(opened.records.recordingsDir).toBe(join(dataDir, 'recordings'));
    expect((await readdir(join(dataDir, 'recordings'))).sort()).toEqual(['being-written.ogg', 'new.ogg']);
    await opened.close();
  });
});
