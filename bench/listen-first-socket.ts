/**
 * The first `/v1/listen` socket of a freshly started service: ms from the upgrade request to the socket's open,
 * and from Finalize to the final (`from_finalize`), for a human clip sent at once; then the same for a second
 * socket. With the service's warm-up the first socket costs what the second does. Each run starts its own
 * service in a fresh process (the engines load once per process). Prints one JSON object.
 * Run: npx tsx bench/listen-first-socket.ts [--no-warm-up]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { parseWav } from '../src/audio/index.js';
import { startEmbeddedService } from '../src/service/index.js';

const warmUp = !process.argv.includes('--no-warm-up');
const clip = parseWav(new Uint8Array(readFileSync(fileURLToPath(new URL('../test/fixtures/human/dev_12.wav', import.meta.url)))));
const pcm = Buffer.from(clip.samples.buffer, clip.samples.byteOffset, clip.samples.byteLength);

const startedAt = performance.now();
const service = await startEmbeddedService({ logLevel: 'silent', warmUp });
const startMs = Math.round(performance.now() - startedAt);

async function socketOnce(): Promise<{ openMs: number; finalMs: number; firstResultsMs: number; transcript: string }> {
  const started = performance.now();
  const ws = new WebSocket(`${service.url.replace(/^http/, 'ws')}/v1/listen?encoding=linear16&sample_rate=${clip.sampleRate}&endpointing=false`, {
    headers: { authorization: `Token ${service.apiKey}` },
  });
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  const openMs = performance.now() - started;
  const final = new Promise<string>((resolve) =>
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; from_finalize?: boolean; channel?: { alternatives: { transcript: string }[] } };
      if (message.type === 'Results' && message.from_finalize) resolve(message.channel!.alternatives[0]!.transcript);
    }),
  );
  ws.send(pcm);
  const finalizedAt = performance.now();
  ws.send(JSON.stringify({ type: 'Finalize' }));
  const transcript = await final;
  const done = performance.now();
  ws.close();
  return { openMs: Math.round(openMs), finalMs: Math.round(done - finalizedAt), firstResultsMs: Math.round(done - started), transcript };
}

const first = await socketOnce();
const second = await socketOnce();
await service.close();
process.stdout.write(`${JSON.stringify({ warmUp, clip: 'test/fixtures/human/dev_12.wav', clipMs: Math.round((clip.samples.length * 1000) / clip.sampleRate), serviceStartMs: startMs, first, second }, null, 1)}\n`);
process.exit(0);
