/**
 * Speech providers on their protocol doubles: prints one JSON object.
 *
 * Without --tts: the Deepgram adapter in this process. Per concurrency (1 and 50 calls by default), each call
 * streams phone audio (8 kHz, 20 ms frames in real time) to the adapter on the Deepgram double, which answers
 * `Finalize` after a fixed 150 ms: utterances of 1 s speech and 300 ms silence, `--turns` per call. Measured: end of
 * the utterance's audio (Shoal's endpoint) → final transcript, p50/p95, against the double's 150 ms; every turn
 * answered; CPU ms per call-second of audio (the adapter and the double share this process: an upper bound).
 * Run: npx tsx bench/providers.ts [--calls 1,50] [--turns 3]   (about 15 s)
 *
 * With --stt deepgram --tts cartesia[,elevenlabs]: from outside (bench/providers/): `shoal agent` in its own process
 * on the doubles (Deepgram's final 150 ms after `Finalize`, first audio 90 ms after the text, an LLM double),
 * called over Twilio's media stream; per provider pair, reply after the caller's turn end at each concurrency,
 * every turn answered, the agent's CPU per call-second.
 * Run: npx tsx bench/providers.ts --stt deepgram --tts cartesia,elevenlabs [--calls 1,50] [--turns 3] [--mode low-latency]
 *   (about 2 min per pair)
 *   … --interims [--llm-first-token 300]: low-latency mode over Deepgram's interims against finals only (about 1 min)
 *   … --soak [--calls 50]: sequential calls with a speech turn each, the agent's RSS growth (500 calls: about 15 min)
 *   Where the agent's CPU goes: BENCH_NODE_FLAGS='--cpu-prof --cpu-prof-dir DIR' before the command, then
 *   npx tsx bench/cpu-profile.ts DIR/CPU.….0.001.cpuprofile --skip-ms START_UP_MS (the main thread's file; the
 *   other files are the VAD worker's and tsx's loader threads).
 */
import { Subject, lastValueFrom } from 'rxjs';
import { percentile, type UtteranceFrame } from '../src/agent/index.js';
import { deepgram } from '../plugins/deepgram/index.js';
import { DeepgramDouble } from '../test/support/deepgram-double.js';
import { toneUtterance } from '../test/support/provider-audio.js';
import { interimsSaving } from './providers/interims.js';
import { measureReplies } from './providers/replies.js';
import { soak } from './providers/soak.js';

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const counts = (argument('--calls') ?? '1,50').split(',').map(Number);
const turns = Number(argument('--turns') ?? 3);
const synthesis = argument('--tts');
if (synthesis) {
  if ((argument('--stt') ?? 'deepgram') !== 'deepgram') throw new Error('--stt: only deepgram has a double here');
  process.stdout.write(`${JSON.stringify(await fromOutside(synthesis.split(',') as Array<'cartesia' | 'elevenlabs'>))}\n`);
  process.exit(0);
}
const finalMs = 150;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number) => Math.round(value * 10) / 10;

async function call(stt: ReturnType<typeof deepgram>): Promise<{ latencies: number[]; answered: number; audioMs: number }> {
  const recogniser = stt.forCall({ callerSampleRate: () => 8000 });
  const latencies: number[] = [];
  let answered = 0;
  let audioMs = 0;
  try {
    for (let turn = 0; turn < turns; turn++) {
      const frames = toneUtterance(8000, 1000, 300);
      const utterance$ = new Subject<UtteranceFrame>();
      const final = lastValueFrom(utterance$.pipe((source) => recogniser.transcribe(source)));
      const started = performance.now();
      for (const [index, frame] of frames.entries()) {
        utterance$.next(frame);
        const due = started + (index + 1) * 20;
        await sleep(Math.max(0, due - performance.now()));
      }
      const ended = performance.now();
      utterance$.complete();
      const result = await final;
      latencies.push(performance.now() - ended);
      if (result.text) answered++;
      audioMs += frames.length * 20;
      await sleep(200);
    }
  } finally {
    recogniser.release();
  }
  return { latencies, answered, audioMs };
}

const double = await DeepgramDouble.start({ keys: ['bench'], latency: { interimMs: 0, finalMs }, script: [] });
const stt = deepgram({ apiKey: 'bench', baseUrl: double.url, endpointingMs: false });
const results = [];
for (const calls of counts) {
  const cpu = process.cpuUsage();
  const outcomes = await Promise.all(Array.from({ length: calls }, () => call(stt)));
  const used = process.cpuUsage(cpu);
  const latencies = outcomes.flatMap((outcome) => outcome.latencies);
  const audioSeconds = outcomes.reduce((sum, outcome) => sum + outcome.audioMs, 0) / 1000;
  results.push({
    calls,
    turns: latencies.length,
    answered: outcomes.reduce((sum, outcome) => sum + outcome.answered, 0),
    final_after_endpoint_ms: { p50: round(percentile(latencies, 50)!), p95: round(percentile(latencies, 95)!), double_ms: finalMs },
    cpu_ms_per_call_second: round((used.user + used.system) / 1000 / audioSeconds),
  });
}
await double.close();
process.stdout.write(`${JSON.stringify({ bench: 'providers', provider: 'deepgram (double)', phone_audio: '8 kHz mu-law, 20 ms frames, real time', results })}\n`);

async function fromOutside(pairs: Array<'cartesia' | 'elevenlabs'>) {
  const machine = { cpus: (await import('node:os')).cpus().length, node: process.version };
  if (process.argv.includes('--soak')) {
    const calls = Number(argument('--calls') ?? 50);
    return { bench: 'providers-soak', machine, results: [await soak({ tts: pairs[0]!, calls, baselineAfter: Math.min(20, calls) })] };
  }
  if (process.argv.includes('--interims')) {
    const llmFirstTokenMs = Number(argument('--llm-first-token') ?? 300);
    return { bench: 'providers-interims', machine, results: [await interimsSaving({ tts: pairs[0]!, turns: Number(argument('--turns') ?? 5), llmFirstTokenMs })] };
  }
  const results = [];
  for (const tts of pairs) {
    results.push(await measureReplies({ tts, mode: (argument('--mode') ?? 'low-latency') as 'low-latency', counts, turns, llmFirstTokenMs: 0, interims: true }));
  }
  return { bench: 'providers-phone', machine, phone_audio: 'Twilio media stream, 8 kHz mu-law, 20 ms frames in real time', results };
}
