/**
 * Deepgram-compatible live recognition next to the native POST /v1/asr, over loopback on the embedded service:
 * for N concurrent sockets each sending a ~12 s recording as fast as it is read, then Finalize, the time from
 * Finalize to the final (`from_finalize`); for N concurrent POST /v1/asr of the same recording, the total time.
 * Prints one JSON object. Run: npx tsx bench/compatible-deepgram.ts [--concurrency 1,20] [--rounds 1]
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { parseWav } from '../src/audio/index.js';
import { startEmbeddedService } from '../src/service/index.js';

const argument = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1]! : fallback;
};
const concurrencies = argument('concurrency', '1,20').split(',').map(Number);
const rounds = Number(argument('rounds', '1'));
const clipFile = fileURLToPath(new URL('../test/fixtures/human/dev_16.wav', import.meta.url));
const file = readFileSync(clipFile);
const wav = parseWav(new Uint8Array(file));
const pcm = Buffer.from(wav.samples.buffer, wav.samples.byteOffset, wav.samples.byteLength);

const service = await startEmbeddedService({ logLevel: 'silent' });
const wsUrl = service.url.replace(/^http/, 'ws');

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: Math.round(at(0.5)), p95: Math.round(at(0.95)), n: sorted.length };
}

/** One socket: the whole clip in 100 ms messages, Finalize, then ms until the from_finalize final. */
async function liveOnce(): Promise<{ finalMs: number; transcript: string }> {
  const ws = new WebSocket(`${wsUrl}/v1/listen?encoding=linear16&sample_rate=${wav.sampleRate}&endpointing=false`, {
    headers: { authorization: `Token ${service.apiKey}` },
  });
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  const chunk = (wav.sampleRate * 2) / 10;
  for (let at = 0; at < pcm.length; at += chunk) ws.send(pcm.subarray(at, at + chunk));
  const started = performance.now();
  ws.send(JSON.stringify({ type: 'Finalize' }));
  const transcript = await new Promise<string>((resolve) =>
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type: string; from_finalize?: boolean; channel?: { alternatives: { transcript: string }[] } };
      if (message.type === 'Results' && message.from_finalize) resolve(message.channel!.alternatives[0]!.transcript);
    }),
  );
  const finalMs = performance.now() - started;
  ws.close();
  return { finalMs, transcript };
}

async function asrOnce(): Promise<number> {
  const form = new FormData();
  form.append('audio', new Blob([file], { type: 'audio/wav' }), 'clip.wav');
  const started = performance.now();
  const response = await fetch(`${service.url}/v1/asr`, { method: 'POST', headers: { authorization: `Bearer ${service.apiKey}` }, body: form });
  await response.json();
  if (!response.ok) throw new Error(`/v1/asr answered ${response.status}`);
  return performance.now() - started;
}

await liveOnce(); // opens the decoder workers
const results: Record<string, unknown> = {};
for (const n of concurrencies) {
  const live: number[] = [];
  const asr: number[] = [];
  let transcript = '';
  for (let round = 0; round < rounds; round++) {
    const answers = await Promise.all(Array.from({ length: n }, () => liveOnce()));
    live.push(...answers.map((answer) => answer.finalMs));
    transcript = answers[0]!.transcript;
    asr.push(...(await Promise.all(Array.from({ length: n }, () => asrOnce()))));
  }
  results[`concurrency_${n}`] = { listenFinalAfterFinalizeMs: stats(live), asrTotalMs: stats(asr), transcript };
}
await service.close();
console.log(
  JSON.stringify(
    { clip: 'test/fixtures/human/dev_16.wav', clipSeconds: wav.samples.length / wav.sampleRate, cores: os.cpus().length, loadavg: os.loadavg().map((v) => Math.round(v * 100) / 100), ...results },
    null,
    2,
  ),
);
process.exit(0);
