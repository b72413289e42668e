/**
 * Hardening figures of `shoal serve`, measured from outside on a real process: the largest delay of a cheap
 * request (GET /wallet/self/api-credit) while each kind of heavy work runs (targets p99 <= 100 ms, max <= 300 ms),
 * idle connections still held after the headers timeout, server memory per unread live session (<= 5 MB),
 * RSS before/after a burst and after a quiet minute (within 150 MB), the balance after an overdraft race, and
 * overload: 60 concurrent long TTS requests, where the excess must get 503 + Retry-After at once and the
 * admitted ones keep their pace (first-byte and whole-response p95 of admitted vs one request alone), and one
 * request already streaming when 59 more arrive (its total and longest wait between reads vs alone).
 * Decompression bombs on /v1/asr (time to the 400 and RSS growth meanwhile), and a soak of 500 short phone calls
 * through one `shoal agent` (RSS after the first 50 and at the end, open descriptors).
 * Prints one JSON object. Run: npx tsx bench/reliability.ts [--quiet-ms 60000] [--only stalls,overload,...] [--tts-streams N]
 * (parts: stalls, connections, unread, burst, race, overload, bombs, soak).
 */
import { encode } from '@msgpack/msgpack';
import os from 'node:os';
import { readFileSync } from 'node:fs';
import { concatSamples, decodeAudio, encodeWav } from '../src/audio/index.js';
import { priceOf } from '../src/service/store/index.js';
import { openRaw } from '../test/support/raw-http.js';
import { creditsToMicros, startServeProcess, unreadLiveSessionMb } from '../test/support/serve-process.js';
import { silentFlac, silentMp3, silentOggOpus, slowWav } from '../test/support/audio-bombs.js';
import { runPhoneSoak } from '../test/support/phone-soak.js';

const quietArg = process.argv.indexOf('--quiet-ms');
const quietMs = quietArg > 0 ? Number(process.argv[quietArg + 1]) : 60_000;
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg > 0 ? new Set(process.argv[onlyArg + 1]!.split(',')) : undefined;
const runs = (part: string) => !only || only.has(part);
const streamsArg = process.argv.indexOf('--tts-streams');
const ttsStreams = streamsArg > 0 ? process.argv[streamsArg + 1]! : undefined;
const serve = await startServeProcess({ inspect: true, ...(ttsStreams ? { args: ['--tts-streams', ttsStreams] } : {}) });
const auth = { authorization: 'Bearer sk_dev' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number) => Math.round(value * 10) / 10;

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** Latencies of back-to-back cheap requests while `heavy` runs. */
async function stallDuring(heavy: () => Promise<number>) {
  const latencies: number[] = [];
  const probeErrors: string[] = [];
  let running = true;
  const started = performance.now();
  let heavyError: string | undefined;
  let heavyStatus: unknown;
  const work = heavy()
    .then((status) => (heavyStatus = status))
    .catch((error: unknown) => (heavyError = String((error as Error).cause ?? error)))
    .finally(() => (running = false));
  while (running) {
    const sent = performance.now();
    try {
      await (await fetch(`${serve.url}/wallet/self/api-credit`, { headers: auth })).arrayBuffer();
      latencies.push(performance.now() - sent);
    } catch (error) {
      probeErrors.push(String((error as Error).cause ?? error));
    }
    await sleep(10);
  }
  await work;
  return {
    p99Ms: round(percentile(latencies, 0.99)),
    maxMs: round(Math.max(...latencies)),
    probes: latencies.length,
    heavyMs: Math.round(performance.now() - started),
    ...(typeof heavyStatus === 'number' ? { heavyStatus } : {}),
    ...(probeErrors.length ? { probeErrors: probeErrors.length, firstProbeError: probeErrors[0] } : {}),
    ...(heavyError ? { heavyError } : {}),
    serverAlive: serve.child.exitCode === null,
  };
}

const speech = await decodeAudio(readFileSync(new URL('../test/fixtures/speech/slt_00.wav', import.meta.url)));
const wavOfSeconds = (seconds: number) =>
  encodeWav(concatSamples(Array.from({ length: Math.ceil((seconds * speech.sampleRate) / speech.samples.length) }, () => speech.samples)), speech.sampleRate);

/** Heavy requests; each resolves with its HTTP status (reported as heavyStatus). */
const heavy: Record<string, () => Promise<number>> = {
  // 100,000 characters: the first 15 s of the response (the rest is read and thrown away by aborting).
  'tts-100k-characters': async () => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 15_000);
    const response = await fetch(`${serve.url}/v1/tts`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'A long answer keeps the engine busy for a while. '.repeat(2041).slice(0, 100_000), format: 'mp3' }),
      signal: controller.signal,
    });
    await response.arrayBuffer().catch(() => {});
    clearTimeout(timer);
    return response.status;
  },
  'asr-120-s': async () => {
    const form = new FormData();
    form.set('audio', new Blob([new Uint8Array(wavOfSeconds(120))]), 'long.wav');
    const response = await fetch(`${serve.url}/v1/asr`, { method: 'POST', headers: auth, body: form });
    await response.arrayBuffer();
    return response.status;
  },
  'model-upload-4x5MB-untranscribed': async () => {
    const form = new FormData();
    form.set('type', 'tts');
    form.set('title', 'bench voice');
    form.set('train_mode', 'fast');
    form.set('visibility', 'private');
    const wav = new Uint8Array(wavOfSeconds(160));
    for (let i = 0; i < 4; i++) form.append('voices', new Blob([wav]), `v${i}.wav`);
    const response = await fetch(`${serve.url}/model`, { method: 'POST', headers: auth, body: form });
    await response.arrayBuffer();
    return response.status;
  },
  'tts-inline-reference-10MB': async () => {
    const body = encode({ text: 'Speak like the reference.', format: 'wav', references: [{ audio: wavOfSeconds(320), text: 'reference speech' }] });
    const response = await fetch(`${serve.url}/v1/tts`, { method: 'POST', headers: { ...auth, 'content-type': 'application/msgpack' }, body });
    await response.arrayBuffer();
    return response.status;
  },
};

/**
 * Decompression bombs posted to /v1/asr: the time to the refusal and the server's RSS growth while it is
 * refused (sampled every 10 ms from /proc), for each container.
 */
async function bombs() {
  const files: Record<string, Uint8Array> = {
    'flac-10h': silentFlac(10 * 3600),
    'flac-10h-unknown-length': silentFlac(10 * 3600, 0),
    'opus-10h': silentOggOpus(10 * 3600),
    'mp3-2h': silentMp3(2 * 3600),
    'wav-10h-at-1hz': slowWav(10 * 3600),
  };
  const results: Record<string, unknown> = {};
  for (const [name, bytes] of Object.entries(files)) {
    const before = serve.rssMb();
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, serve.rssMb())), 10);
    const form = new FormData();
    form.set('audio', new Blob([Buffer.from(bytes)]), name);
    const sent = performance.now();
    const response = await fetch(`${serve.url}/v1/asr`, { method: 'POST', headers: auth, body: form });
    await response.arrayBuffer();
    const refusedMs = performance.now() - sent;
    clearInterval(timer);
    results[name] = { fileMb: round(bytes.length / 2 ** 20), status: response.status, refusedMs: Math.round(refusedMs), rssGrowthMb: round(peak - before) };
  }
  return results;
}

const loadBefore = os.loadavg();
const figures: Record<string, unknown> = {};

if (runs('stalls') || Object.keys(heavy).some((name) => only?.has(name))) {
  const stalls: Record<string, unknown> = {};
  for (const [name, work] of Object.entries(heavy)) if (!only || only.has('stalls') || only.has(name)) stalls[name] = await stallDuring(work);
  figures.stallDuringHeavyWork = stalls;
}

if (runs('connections')) {
  // Idle connections: opened, never written to; how many are still open 2 s after the 10 s headers timeout.
  const idle = await Promise.all(Array.from({ length: 1000 }, () => openRaw(serve.url)));
  await sleep(12_000);
  figures.idleConnectionsOpened = idle.length;
  figures.connectionsHeldAfterHeadersTimeout = idle.filter((raw) => !raw.socket.destroyed && raw.socket.readyState === 'open').length;
  idle.forEach((raw) => raw.socket.destroy());
}

// Unread live sessions: clients that send text and then stop reading.
// A key of its own: the stall probes before it spend sk_dev's per-key request rate.
if (runs('unread')) figures.unreadLiveSessionMb = await unreadLiveSessionMb(serve, (await serve.addUser('unread-reader', creditsToMicros(1000))).key);

if (runs('burst')) {
  // Memory across a burst: 20 parallel 2,000-character requests.
  await sleep(2000);
  const rssBeforeBurstMb = round(serve.rssMb());
  const burstText = 'Sentence number one keeps the answer going a little longer. '.repeat(34).slice(0, 2000);
  const burst = await Promise.all(
    Array.from({ length: 20 }, async () => {
      const response = await fetch(`${serve.url}/v1/tts`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ text: burstText, format: 'mp3' }) });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const rssAfterBurstMb = round(serve.rssMb());
  await sleep(quietMs);
  figures.rssMb = { beforeBurst: rssBeforeBurstMb, afterBurst: rssAfterBurstMb, afterQuiet: round(serve.rssMb()), quietMs };
  figures.burstStatuses = countBy(burst);
}

if (runs('race')) figures.race = await overdraftRace();
if (runs('overload')) figures.overload = await overload(60);
if (runs('bombs')) figures.bombs = await bombs();
await serve.stop();
if (runs('soak')) figures.soak = await runPhoneSoak({ calls: 500, concurrency: 4, baselineAfter: 50, callerMs: 400 });

console.log(JSON.stringify({ bench: 'reliability', ttsStreams: ttsStreams ? Number(ttsStreams) : 'default', loadavgBefore: loadBefore.map(round), loadavgAfter: os.loadavg().map(round), cpus: os.cpus().length, ...figures }));

/** The overdraft race: credit for 3 of 20 parallel requests. */
async function overdraftRace() {
  const raceText = 'Sentence number one keeps the answer going a little longer. '.repeat(10).trim();
  const price = priceOf({ kind: 'tts', characters: raceText.length });
  const racer = await serve.addUser('racer', 3 * price);
  const raceStatuses = await Promise.all(
    Array.from({ length: 20 }, async () => {
      const response = await fetch(`${serve.url}/v1/tts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${racer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: raceText, format: 'pcm' }),
      });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  await sleep(500);
  return { statuses: countBy(raceStatuses), balanceAfterRaceMicros: await serve.balance('racer') };
}

/**
 * One long TTS request: status, Retry-After, time to the headers, to the first audio byte and to the end, and
 * the longest wait between two reads of its body; `onFirstByte` runs when its audio starts.
 */
async function timedTts(onFirstByte?: () => void) {
  const text = 'A long answer keeps the engine busy for a while. '.repeat(20);
  const sent = performance.now();
  const response = await fetch(`${serve.url}/v1/tts`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ text, format: 'mp3' }) });
  const headersMs = performance.now() - sent;
  const reader = response.body!.getReader();
  let firstByteMs: number | undefined;
  let last = performance.now();
  let maxGapMs = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    const now = performance.now();
    if (firstByteMs === undefined) {
      firstByteMs = now - sent;
      onFirstByte?.();
    } else maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }
  return { status: response.status, retryAfter: response.headers.get('retry-after'), headersMs, firstByteMs: firstByteMs ?? headersMs, totalMs: performance.now() - sent, maxGapMs };
}

/** A request already streaming when `concurrent - 1` more arrive at once: its total time and longest wait between reads. */
async function inProgressDuringBurst(concurrent: number) {
  let burst: Promise<unknown> | undefined;
  const streaming = await timedTts(() => (burst = Promise.all(Array.from({ length: concurrent - 1 }, () => timedTts()))));
  await burst;
  return { status: streaming.status, totalMs: round(streaming.totalMs), maxGapMs: round(streaming.maxGapMs) };
}

/** `concurrent` long TTS requests at once against the same request alone. */
async function overload(concurrent: number) {
  await timedTts();
  const alone = [await timedTts(), await timedTts()];
  const all = await Promise.all(Array.from({ length: concurrent }, () => timedTts()));
  const admitted = all.filter((r) => r.status === 200);
  const refused = all.filter((r) => r.status === 503);
  return {
    concurrent,
    statuses: countBy(all.map((r) => r.status)),
    refusedWithRetryAfter: refused.filter((r) => r.retryAfter !== null).length,
    refusedMaxMs: round(Math.max(0, ...refused.map((r) => r.headersMs))),
    aloneFirstByteMs: round(Math.min(...alone.map((r) => r.firstByteMs))),
    aloneTotalMs: round(Math.min(...alone.map((r) => r.totalMs))),
    admittedFirstByteP95Ms: round(percentile(admitted.map((r) => r.firstByteMs), 0.95)),
    admittedTotalP95Ms: round(percentile(admitted.map((r) => r.totalMs), 0.95)),
    aloneMaxGapMs: round(Math.min(...alone.map((r) => r.maxGapMs))),
    inProgress: await inProgressDuringBurst(concurrent),
  };
}

function countBy(values: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
