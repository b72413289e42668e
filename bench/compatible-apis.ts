/**
 * What the OpenAI-compatible routes cost over the native ones, on a real `shoal serve`: for 1 and 20
 * concurrent clients, the transcription of a ~10 s clip (POST /v1/audio/transcriptions vs POST /v1/asr) and
 * the speech of a 200-character text (POST /v1/audio/speech vs POST /v1/tts, both MP3, same voice and
 * chunking), time to the first byte and to the last, p50 and p95 in ms, and the ratio OpenAI / native of
 * each (goal: within 10 %). Requests of the two kinds alternate, so the machine's noise falls on both.
 * Prints one JSON object. Run: npx tsx bench/compatible-apis.ts [--rounds N] (default 2 rounds of each
 * concurrency; the figures of a busy machine move by more than the goal, use more rounds on a quiet one).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { concatSamples, decodeAudio, encodeWav } from '../src/audio/index.js';
import { startServeProcess } from '../test/support/serve-process.js';

const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 2;
const concurrencies = [1, 20];
const auth = { authorization: 'Bearer sk_dev' };
const text =
  'Thank you for calling the Harbour Restaurant. We are open from noon until ten every day except Monday, and a table for two tonight is still free at eight.'.padEnd(200, ' Thanks.').slice(0, 200);

/** About ten seconds of speech: the recorded test sentences end to end. */
async function tenSecondClip(): Promise<Uint8Array> {
  const names = ['slt_00.wav', 'slt_01.wav', 'rms_00.wav', 'slt_03.wav'];
  const parts = await Promise.all(names.map((name) => decodeAudio(readFileSync(join(import.meta.dirname, '../test/fixtures/speech', name)))));
  return encodeWav(concatSamples(parts.map((part) => part.samples)), parts[0]!.sampleRate);
}

interface Timing {
  firstMs: number;
  totalMs: number;
}

async function timed(send: () => Promise<Response>): Promise<Timing> {
  const started = performance.now();
  const response = await send();
  if (response.status !== 200) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  const reader = response.body!.getReader();
  let firstMs = -1;
  for (let part = await reader.read(); !part.done; part = await reader.read()) if (firstMs < 0) firstMs = performance.now() - started;
  return { firstMs, totalMs: performance.now() - started };
}

const serve = await startServeProcess({ args: ['--key-rate', '1000', '--tts-streams', '20'] });
const clip = await tenSecondClip();
const form = (field: string, extra: Record<string, string>) => {
  const body = new FormData();
  body.append(field, new Blob([Buffer.from(clip)], { type: 'audio/wav' }), 'clip.wav');
  for (const [key, value] of Object.entries(extra)) body.append(key, value);
  return body;
};
const json = (body: unknown) => ({ method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });

const requests: Record<string, () => Promise<Response>> = {
  openaiTranscription: () => fetch(`${serve.url}/v1/audio/transcriptions`, { method: 'POST', headers: auth, body: form('file', { model: 'whisper-1' }) }),
  nativeAsr: () => fetch(`${serve.url}/v1/asr`, { method: 'POST', headers: auth, body: form('audio', {}) }),
  openaiSpeech: () => fetch(`${serve.url}/v1/audio/speech`, json({ model: 'tts-1', input: text, voice: 'alloy', response_format: 'mp3' })),
  nativeTts: () =>
    fetch(`${serve.url}/v1/tts`, {
      ...json({ text, reference_id: 'slt', format: 'mp3', sample_rate: 44100, latency: 'balanced' }),
      headers: { ...auth, 'content-type': 'application/json', model: 's2.1-pro' },
    }),
};

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
}

const summary = (timings: Timing[]) => ({
  firstByteMs: { p50: percentile(timings.map((t) => t.firstMs), 0.5), p95: percentile(timings.map((t) => t.firstMs), 0.95) },
  totalMs: { p50: percentile(timings.map((t) => t.totalMs), 0.5), p95: percentile(timings.map((t) => t.totalMs), 0.95) },
});

// Warm the engines and workers before anything is timed.
for (const send of Object.values(requests)) await timed(send);

const results: Record<string, unknown> = {};
for (const clients of concurrencies) {
  const timings: Record<string, Timing[]> = Object.fromEntries(Object.keys(requests).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const pair of [['openaiTranscription', 'nativeAsr'], ['nativeTts', 'openaiSpeech'], ['nativeAsr', 'openaiTranscription'], ['openaiSpeech', 'nativeTts']]) {
      for (const name of pair) timings[name]!.push(...(await Promise.all(Array.from({ length: clients }, () => timed(requests[name]!)))));
    }
  }
  const each = Object.fromEntries(Object.entries(timings).map(([name, list]) => [name, summary(list)]));
  const ratio = (openai: string, native: string) => ({
    firstByteP50: Math.round((each[openai]!.firstByteMs.p50 / each[native]!.firstByteMs.p50) * 100) / 100,
    totalP50: Math.round((each[openai]!.totalMs.p50 / each[native]!.totalMs.p50) * 100) / 100,
  });
  results[`clients${clients}`] = {
    ...each,
    openaiOverNative: { transcription: ratio('openaiTranscription', 'nativeAsr'), speech: ratio('openaiSpeech', 'nativeTts') },
  };
}

await serve.stop();
console.log(
  JSON.stringify(
    { clipSeconds: Math.round((clip.length - 44) / 32) / 1000, textCharacters: text.length, rounds, requestsPerKindAndRound: concurrencies, ...results },
    null,
    2,
  ),
);
