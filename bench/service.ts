/**
 * Speech service figures over real loopback sockets: time to first audio byte on POST /v1/tts and on the live
 * WebSocket for a 12-word sentence (target <= 80 ms), TTS real-time factor per format, ASR real-time factor
 * (target <= 0.3) and 20 concurrent TTS requests (all must succeed; p95 reported).
 * Prints one JSON object. Run: npx tsx bench/service.ts
 */
import { decode, encode } from '@msgpack/msgpack';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { decodeAudio, bytesToInt16 } from '../src/audio/index.js';
import { startEmbeddedService } from '../src/service/index.js';

const fixtures = fileURLToPath(new URL('../test/fixtures/', import.meta.url));
const sentence = 'Thanks for calling, I can help you book a table for tonight.';
const RUNS = 15;

const service = await startEmbeddedService({ logLevel: 'silent' });
const headers = { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' };

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const round = (v: number) => Math.round(v * 10) / 10;
  return { median: round(at(0.5)), p95: round(at(0.95)), min: round(sorted[0]!), max: round(sorted.at(-1)!) };
}

async function ttsOnce(body: Record<string, unknown>): Promise<{ firstMs: number; totalMs: number; bytes: Uint8Array; status: number }> {
  const started = performance.now();
  const response = await fetch(`${service.url}/v1/tts`, { method: 'POST', headers, body: JSON.stringify(body) });
  const reader = response.body!.getReader();
  const parts: Uint8Array[] = [];
  let firstMs = -1;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (firstMs < 0) firstMs = performance.now() - started;
    parts.push(value);
  }
  return { firstMs, totalMs: performance.now() - started, bytes: Buffer.concat(parts), status: response.status };
}

async function httpFirstByte() {
  const out: Record<string, ReturnType<typeof stats>> = {};
  for (const format of ['pcm', 'wav', 'mp3', 'opus']) {
    for (const latency of ['normal', 'low']) {
      const body = { text: sentence, format, latency, ...(format === 'pcm' || format === 'wav' ? { sample_rate: 16000 } : {}) };
      await ttsOnce(body);
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) times.push((await ttsOnce(body)).firstMs);
      out[`${format}/${latency}`] = stats(times);
    }
  }
  return out;
}

function openLive(): Promise<WebSocket> {
  const ws = new WebSocket(`${service.url.replace('http', 'ws')}/v1/tts/live`, { headers: { authorization: `Bearer ${service.apiKey}` } });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Time from `text`+`flush` to the first audio event on an open, started socket (how the agent uses it). */
async function liveFirstAudio(request: Record<string, unknown>) {
  const ws = await openLive();
  let lastMessageAt = performance.now();
  ws.on('message', () => (lastMessageAt = performance.now()));
  const quiet = async () => {
    while (performance.now() - lastMessageAt < 300) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  ws.send(encode({ event: 'start', request }));
  const times: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const arrived = new Promise<number>((resolve) => {
      const onMessage = (data: Buffer) => {
        const event = decode(data) as { event: string };
        if (event.event !== 'audio') return;
        ws.off('message', onMessage);
        resolve(performance.now());
      };
      ws.on('message', onMessage);
    });
    const started = performance.now();
    ws.send(encode({ event: 'text', text: sentence }));
    ws.send(encode({ event: 'flush' }));
    const at = await arrived;
    if (run > 0) times.push(at - started);
    await quiet();
  }
  ws.close();
  return stats(times);
}

async function ttsRealTimeFactor() {
  const text = Array.from({ length: 12 }, (_, i) => `Sentence ${i + 1} tells a little more of the story, so the listener keeps up.`).join(' ');
  const out: Record<string, { rtf: number; audioSeconds: number; wallMs: number }> = {};
  for (const format of ['pcm', 'wav', 'mp3', 'opus']) {
    const result = await ttsOnce({ text, format, ...(format === 'pcm' ? { sample_rate: 44100 } : {}) });
    const decoded = format === 'pcm' ? { samples: bytesToInt16(result.bytes), sampleRate: 44100 } : await decodeAudio(result.bytes);
    const audioSeconds = decoded.samples.length / decoded.sampleRate;
    out[format] = { rtf: Math.round((result.totalMs / 1000 / audioSeconds) * 1000) / 1000, audioSeconds: Math.round(audioSeconds * 10) / 10, wallMs: Math.round(result.totalMs) };
  }
  return out;
}

async function asrRealTimeFactor() {
  const files = ['calls/booking-16k.wav', 'calls/support-16k.wav', 'speech/slt_00.wav', 'speech/rms_00.wav'];
  let audioSeconds = 0;
  let wallMs = 0;
  for (const file of files) {
    const bytes = readFileSync(fixtures + file);
    const form = new FormData();
    form.set('audio', new Blob([bytes]), file);
    const started = performance.now();
    const response = await fetch(`${service.url}/v1/asr`, { method: 'POST', headers: { authorization: headers.authorization }, body: form });
    const result = (await response.json()) as { duration: number };
    wallMs += performance.now() - started;
    audioSeconds += result.duration;
  }
  return { rtf: Math.round((wallMs / 1000 / audioSeconds) * 1000) / 1000, audioSeconds: Math.round(audioSeconds * 10) / 10, wallMs: Math.round(wallMs) };
}

async function concurrentTts(count: number, format: string) {
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) => ttsOnce({ text: `Request ${i + 1}: ${sentence}`, format })),
  );
  return {
    requests: count,
    succeeded: results.filter((result) => result.status === 200 && result.bytes.length > 0).length,
    latencyMs: stats(results.map((result) => result.totalMs)),
    firstByteMs: stats(results.map((result) => result.firstMs)),
    wallMs: Math.round(performance.now() - started),
  };
}

const report = {
  machine: { cpus: os.cpus().length, loadAverage: os.loadavg().map((v) => Math.round(v * 100) / 100), node: process.version },
  sentence,
  targets: { firstAudioMs: 80, asrRtf: 0.3 },
  httpFirstByteMs: await httpFirstByte(),
  liveFirstAudioMs: {
    'pcm/normal': await liveFirstAudio({ format: 'pcm', sample_rate: 16000 }),
    'mp3/normal': await liveFirstAudio({ format: 'mp3' }),
    'pcm/low': await liveFirstAudio({ format: 'pcm', sample_rate: 16000, latency: 'low' }),
  },
  ttsRealTimeFactor: await ttsRealTimeFactor(),
  asrRealTimeFactor: await asrRealTimeFactor(),
  concurrentTts: { mp3: await concurrentTts(20, 'mp3'), wav: await concurrentTts(20, 'wav') },
};
await service.close();
console.log(JSON.stringify(report, null, 2));
process.exit(0);
