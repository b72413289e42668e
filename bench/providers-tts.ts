/**
 * Streaming synthesis providers on their protocol doubles: prints one JSON object.
 * Each double answers the first audio of a reply a fixed 90 ms after its first text (Cartesia, ElevenLabs) or after
 * the request (OpenAI-compatible `/audio/speech`). Per provider and line (16 kHz, and a phone line's 8 kHz), replies
 * of two sentences: `--replies` one after another, then `--concurrent` at once. Measured through the adapter: the
 * reply's start (`speak()` subscribed, its text ready) → the first audio frame, p50/p95, and what the adapter adds to
 * the double's 90 ms (the socket is already open: `prepare()` runs first, as the agent does when the caller speaks).
 * Run: npx tsx bench/providers-tts.ts [--replies 20] [--concurrent 20]   (about 10 s)
 */
import { firstValueFrom, from, filter } from 'rxjs';
import { percentile, type TextToSpeech } from '../src/agent/index.js';
import { cartesia } from '../plugins/cartesia/index.js';
import { elevenlabs } from '../plugins/elevenlabs/index.js';
import { openaiTts } from '../plugins/openai-audio/index.js';
import { CartesiaDouble } from '../test/support/cartesia-double.js';
import { ElevenLabsDouble } from '../test/support/elevenlabs-double.js';
import { startOpenAiAudioDouble } from '../test/support/openai-audio-double.js';

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const replies = Number(argument('--replies') ?? 20);
const concurrent = Number(argument('--concurrent') ?? 20);
const firstAudioMs = 90;
const reply = ['Your table for two is booked for seven tonight.', 'Is there anything else I can do for you?'];
const round = (value: number) => Math.round(value * 10) / 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds from the reply's start to its first audio frame. */
async function firstAudio(tts: TextToSpeech, sampleRate: number): Promise<number> {
  const started = performance.now();
  await firstValueFrom(tts.speak({ text$: from(reply), sampleRate }).pipe(filter((audio) => audio.frame.samples.length > 0)));
  return performance.now() - started;
}

function summary(latencies: number[]) {
  const p50 = percentile(latencies, 50) ?? NaN;
  const p95 = percentile(latencies, 95) ?? NaN;
  return { p50Ms: round(p50), p95Ms: round(p95), addedP50Ms: round(p50 - firstAudioMs) };
}

async function measure(tts: TextToSpeech, sampleRate: number) {
  tts.prepare?.({ sampleRate });
  await firstAudio(tts, sampleRate); // warm: the socket open, the resampler loaded
  const sequential: number[] = [];
  for (let index = 0; index < replies; index++) {
    sequential.push(await firstAudio(tts, sampleRate));
    await sleep(20);
  }
  const atOnce = await Promise.all(Array.from({ length: concurrent }, () => firstAudio(tts, sampleRate)));
  return { sampleRate, sequential: summary(sequential), [`concurrent${concurrent}`]: summary(atOnce) };
}

const providers: Array<{ name: string; start(): Promise<{ tts: TextToSpeech & { close?(): void }; close(): Promise<void> }> }> = [
  {
    name: 'cartesia',
    async start() {
      const double = await CartesiaDouble.start({ keys: ['bench'], firstAudioMs });
      return { tts: cartesia({ apiKey: 'bench', baseUrl: double.url }), close: () => double.close() };
    },
  },
  {
    name: 'elevenlabs',
    async start() {
      const double = await ElevenLabsDouble.start({ keys: ['bench'], firstAudioMs });
      return { tts: elevenlabs({ apiKey: 'bench', baseUrl: double.url }), close: () => double.close() };
    },
  },
  {
    name: 'openai',
    async start() {
      const double = await startOpenAiAudioDouble({ apiKey: 'bench', transcript: '', firstAudioMs });
      return { tts: openaiTts({ apiKey: 'bench', baseUrl: double.url }), close: () => double.close() };
    },
  },
];

const results: Record<string, unknown[]> = {};
for (const provider of providers) {
  const { tts, close } = await provider.start();
  results[provider.name] = [await measure(tts, 16000), await measure(tts, 8000)];
  tts.close?.();
  await close();
}
console.log(JSON.stringify({ bench: 'providers-tts', doubleFirstAudioMs: firstAudioMs, replies, concurrent, results }, null, 2));
