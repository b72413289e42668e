/**
 * Our client vs the official `fish-audio` SDK against the same local server, in one run: time to first
 * audio byte and total time of the same TTS request, over HTTP (`POST /v1/tts`) and over the live WebSocket.
 * Prints JSON with medians and ratios ours/theirs (target <= 1.0).
 *
 *   npx tsx bench/client.ts [--server fake|service] [--runs N]
 *
 * `fake` (default) is a local server that streams fixed audio with fixed pacing, so the figures measure the
 * clients only; `service` is `shoal serve` (real synthesis, so engine time dominates). Either server runs in a
 * child process, so it does not share an event loop with the clients being timed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { decode, encode } from '@msgpack/msgpack';
import { FishAudioClient, RealtimeEvents } from 'fish-audio';
import { WebSocketServer } from 'ws';
import { SpeechClient, type LiveTtsSession } from '../src/client/index.js';

const API_KEY = 'bench-key';
const TEXT = 'Hello there. This is a benchmark sentence for the speech client, spoken twice over.';
const REQUEST = { text: TEXT, format: 'pcm' as const, sample_rate: 16000, latency: 'balanced' as const };
const CHUNKS = 12;
const CHUNK_BYTES = 3200;
const FIRST_CHUNK_DELAY_MS = Number(process.env.BENCH_FIRST_CHUNK_MS ?? 15);
const CHUNK_GAP_MS = Number(process.env.BENCH_CHUNK_GAP_MS ?? 3);

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1]! : fallback;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function streamAudio(write: (chunk: Buffer) => void): Promise<void> {
  await wait(FIRST_CHUNK_DELAY_MS);
  for (let i = 0; i < CHUNKS; i++) {
    write(Buffer.alloc(CHUNK_BYTES, i));
    await wait(CHUNK_GAP_MS);
  }
}

async function startFakeService(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    for await (const _ of req) void _;
    if (req.url !== '/v1/tts') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    await streamAudio((chunk) => res.write(chunk));
    res.end();
  });
  const wss = new WebSocketServer({ server, path: '/v1/tts/live' });
  wss.on('connection', (socket) => {
    socket.on('message', async (data) => {
      const event = decode(data as Buffer) as { event: string };
      if (event.event !== 'stop' && event.event !== 'flush') return;
      await streamAudio((chunk) => socket.send(encode({ event: 'audio', audio: chunk })));
      if (event.event === 'stop') {
        socket.send(encode({ event: 'finish', reason: 'stop' }));
        socket.close(1000);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of wss.clients) socket.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Runs `command` and resolves with the URL it prints in a `listening on URL` line. */
async function startChild(command: string, args: string[], cleanup: () => void = () => undefined): Promise<{ url: string; close(): Promise<void> }> {
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code} before listening`)));
    lines.on('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) resolve(match[1]!);
    });
  });
  return {
    url,
    close: async () => {
      child.removeAllListeners('exit');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      cleanup();
    },
  };
}

function startServer(kind: string) {
  if (kind === 'service') {
    const data = mkdtempSync(join(tmpdir(), 'shoal-bench-'));
    const args = ['bin/shoal.js', 'serve', '--port', '0', '--dev-key', API_KEY, '--data', data, '--log-level', 'warn'];
    return startChild(process.execPath, args, () => rmSync(data, { recursive: true, force: true }));
  }
  return startChild(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve-fake']);
}

interface Timing {
  firstByteMs: number;
  totalMs: number;
  bytes: number;
}

async function oursHttp(client: SpeechClient): Promise<Timing> {
  const started = performance.now();
  let firstByteMs = -1;
  let bytes = 0;
  for await (const chunk of client.tts(REQUEST, { model: 's1' })) {
    if (firstByteMs < 0) firstByteMs = performance.now() - started;
    bytes += chunk.byteLength;
  }
  return { firstByteMs, totalMs: performance.now() - started, bytes };
}

async function theirsHttp(client: FishAudioClient): Promise<Timing> {
  const started = performance.now();
  let firstByteMs = -1;
  let bytes = 0;
  const body = (await client.textToSpeech.convert(REQUEST, 's1')) as unknown as ReadableStream<Uint8Array>;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    if (firstByteMs < 0) firstByteMs = performance.now() - started;
    bytes += chunk.byteLength;
  }
  return { firstByteMs, totalMs: performance.now() - started, bytes };
}

/** Total time is the arrival of the last audio byte, for both clients (not the end-of-utterance signal). */
async function oursLive(client: SpeechClient): Promise<Timing> {
  const started = performance.now();
  let firstByteMs = -1;
  let lastByteMs = -1;
  let bytes = 0;
  const session = await client.live({ format: 'pcm', sample_rate: 16000, latency: 'balanced' }, { model: 's1' });
  const reading = (async () => {
    for await (const event of session) {
      if (event.type !== 'audio' || event.audio.byteLength === 0) continue;
      if (firstByteMs < 0) firstByteMs = performance.now() - started;
      lastByteMs = performance.now() - started;
      bytes += event.audio.byteLength;
    }
  })();
  session.send(TEXT);
  await session.stop();
  session.close();
  await reading;
  return { firstByteMs, totalMs: lastByteMs, bytes };
}

/**
 * One long-lived session, one flushed utterance per call: the way the agent uses the socket (no per-utterance
 * upgrade). Each call also waits, untimed, for its utterance to complete (idle gap), as a turn of the agent would.
 */
function oursWarmLive(session: LiveTtsSession): () => Promise<Timing> {
  const iterator = session[Symbol.asyncIterator]();
  return async () => {
    const started = performance.now();
    let firstByteMs = -1;
    let lastByteMs = -1;
    let bytes = 0;
    session.send(TEXT);
    void session.flush();
    for (;;) {
      const next = await iterator.next();
      if (next.done) throw new Error('the live session ended');
      if (next.value.type === 'utterance-end') break;
      if (next.value.type !== 'audio' || next.value.audio.byteLength === 0) continue;
      if (firstByteMs < 0) firstByteMs = performance.now() - started;
      lastByteMs = performance.now() - started;
      bytes += next.value.audio.byteLength;
    }
    return { firstByteMs, totalMs: lastByteMs, bytes };
  };
}

async function theirsLive(client: FishAudioClient): Promise<Timing> {
  const started = performance.now();
  let firstByteMs = -1;
  let lastByteMs = -1;
  let bytes = 0;
  async function* text() {
    yield TEXT;
  }
  const connection = await client.textToSpeech.convertRealtime({ ...REQUEST, text: '' } as never, text(), 's1');
  await new Promise<void>((resolve, reject) => {
    connection.on(RealtimeEvents.AUDIO_CHUNK, (...args: unknown[]) => {
      const audio = args[0] as Uint8Array;
      if (audio.byteLength === 0) return;
      if (firstByteMs < 0) firstByteMs = performance.now() - started;
      lastByteMs = performance.now() - started;
      bytes += audio.byteLength;
    });
    connection.on(RealtimeEvents.ERROR, reject);
    connection.on(RealtimeEvents.CLOSE, () => resolve());
  });
  connection.close();
  return { firstByteMs, totalMs: lastByteMs, bytes };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function summary(timings: Timing[]) {
  return {
    firstByteMs: Number(median(timings.map((t) => t.firstByteMs)).toFixed(2)),
    totalMs: Number(median(timings.map((t) => t.totalMs)).toFixed(2)),
    bytes: timings[0]!.bytes,
  };
}

async function compare(runs: number, ours: () => Promise<Timing>, theirs: () => Promise<Timing>) {
  for (let i = 0; i < 3; i++) {
    await ours();
    await theirs();
  }
  const mine: Timing[] = [];
  const official: Timing[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2) {
      mine.push(await ours());
      official.push(await theirs());
    } else {
      official.push(await theirs());
      mine.push(await ours());
    }
  }
  const a = summary(mine);
  const b = summary(official);
  if (a.bytes !== b.bytes) throw new Error(`the clients received different audio sizes: ${a.bytes} vs ${b.bytes}`);
  return {
    ours: a,
    theirs: b,
    ratio: { firstByte: Number((a.firstByteMs / b.firstByteMs).toFixed(3)), total: Number((a.totalMs / b.totalMs).toFixed(3)) },
  };
}

async function main() {
  if (process.argv.includes('--serve-fake')) {
    const fake = await startFakeService();
    process.stdout.write(`listening on ${fake.url}\n`);
    process.once('SIGTERM', () => void fake.close().then(() => process.exit(0)));
    return;
  }
  const kind = argument('server', 'fake');
  const runs = Number(argument('runs', '30'));
  const server = await startServer(kind);
  try {
    const ours = new SpeechClient({ baseUrl: server.url, apiKey: API_KEY });
    const theirs = new FishAudioClient({ apiKey: API_KEY, baseUrl: server.url });
    const http = await compare(runs, () => oursHttp(ours), () => theirsHttp(theirs));
    const live = await compare(runs, () => oursLive(ours), () => theirsLive(theirs));
    const session = await ours.live({ format: 'pcm', sample_rate: 16000, latency: 'balanced' }, { model: 's1', utteranceIdleMs: 300 });
    const liveWarm = await compare(runs, oursWarmLive(session), () => theirsLive(theirs));
    session.close();
    const result = {
      bench: 'client',
      server: kind,
      runs,
      text_chars: TEXT.length,
      http,
      live,
      live_warm_session: liveWarm,
      notes: 'medians; total = last audio byte; live = a new socket per request for both; live_warm_session = ours on one open session (flush per utterance) vs theirs opening a socket per request',
      target: 'ratio <= 1.0',
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await server.close();
  }
}

await main();
