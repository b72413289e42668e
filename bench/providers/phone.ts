/**
 * Phone calls from outside to `shoal agent --stt … --tts …` on provider doubles: the doubles run in this process
 * (each at its fixed latency), the agent in its own process, called over Twilio's media stream (20 ms mu-law
 * frames in real time). A caller's turn is a stretch of test/fixtures/calls/booking-8k-ulaw.wav.
 */
import { readFileSync } from 'node:fs';
import { decodeMuLaw, encodeMuLaw, parseWav } from '../../src/audio/index.js';
import { MediaStreamCaller } from '../../src/transports/index.js';
import { CartesiaDouble } from '../../test/support/cartesia-double.js';
import { DeepgramDouble } from '../../test/support/deepgram-double.js';
import { ElevenLabsDouble } from '../../test/support/elevenlabs-double.js';
import { FakeOpenAiServer, says, sleep } from '../../test/support/fake-openai-server.js';
import { startShoal, type RunningCommand } from '../capacity/child.js';

export const latencies = { sttFinalMs: 150, ttsFirstAudioMs: 90 };
export const replyText = 'Sure, I can help with that.';

/** The caller's words: a stretch of the recording, with where its speech ends (ms from its start). */
export interface Utterance {
  mulaw: Uint8Array;
  speechEndMs: number;
}

const recording = encodeMuLaw(parseWav(readFileSync(new URL('../../test/fixtures/calls/booking-8k-ulaw.wav', import.meta.url))).samples);

/** The recording from `fromMs` to `toMs`, and where its last voiced 20 ms frame ends. */
export function utterance(fromMs: number, toMs: number): Utterance {
  const mulaw = recording.subarray((fromMs * 8000) / 1000, (toMs * 8000) / 1000);
  const pcm = decodeMuLaw(mulaw);
  let speechEndMs = 0;
  for (let at = 0; at + 160 <= pcm.length; at += 160) {
    let sum = 0;
    for (let i = at; i < at + 160; i++) sum += Math.abs(pcm[i]!);
    if (sum / 160 > 500) speechEndMs = (at / 160 + 1) * 20;
  }
  return { mulaw, speechEndMs };
}

/** "Hello, I would like to book a table for two people tonight" (3 s), and "Goodbye" (0.5 s). */
export const longTurn = utterance(900, 4200);
export const shortTurn = utterance(10_050, 10_800);

export interface Doubles {
  stt: DeepgramDouble;
  tts: CartesiaDouble | ElevenLabsDouble;
  llm: FakeOpenAiServer;
  close(): Promise<void>;
}

export interface DoublesOptions {
  tts: 'cartesia' | 'elevenlabs';
  /** The LLM double's time to the first token, ms. */
  llmFirstTokenMs: number;
  /** Deepgram gives interim results (else finals only, as with `interim_results=false`). */
  interims: boolean;
  /** Length of synthesised speech per character, ms. */
  msPerChar?: number;
}

export async function startDoubles(options: DoublesOptions): Promise<Doubles> {
  const stt = await DeepgramDouble.start({ keys: ['bench'], latency: { interimMs: 0, finalMs: latencies.sttFinalMs }, script: [], interims: options.interims });
  const synthesis = { keys: ['bench'], firstAudioMs: latencies.ttsFirstAudioMs, msPerChar: options.msPerChar ?? 20 };
  const tts = options.tts === 'cartesia' ? await CartesiaDouble.start(synthesis) : await ElevenLabsDouble.start(synthesis);
  const llm = await new FakeOpenAiServer().start();
  llm.fallback = async (res, request) => {
    await sleep(options.llmFirstTokenMs);
    await says(replyText)(res, request);
  };
  return { stt, tts, llm, close: async () => void (await Promise.all([stt.close(), tts.close(), llm.close()])) };
}

/** `shoal agent` on the doubles, an LLM agent without a greeting unless `greeting`. */
export async function startAgent(doubles: Doubles, tts: string, mode: string, maxCalls: number, greeting = ''): Promise<RunningCommand> {
  const args = ['agent', '--port', '0', '--mode', mode, '--max-calls', String(maxCalls), '--log-level', process.env['BENCH_LOG'] ?? 'error', '--no-call-records'];
  args.push('--stt', 'deepgram', '--stt-url', doubles.stt.url, '--tts', tts, '--tts-url', doubles.tts.url, '--llm-url', doubles.llm.baseUrl, '--greeting', greeting);
  process.env['DEEPGRAM_API_KEY'] = 'bench';
  process.env['CARTESIA_API_KEY'] = 'bench';
  process.env['ELEVENLABS_API_KEY'] = 'bench';
  const nodeFlags = process.env['BENCH_NODE_FLAGS']?.split(' ').filter(Boolean) ?? []; // e.g. `--cpu-prof --cpu-prof-dir DIR`
  return startShoal(args, /open (\S+) and press/, 120_000, nodeFlags);
}

/** CPU time the process `pid` has used, ms (user + system, from /proc); with `mainThread`, its event loop's thread only. */
export function cpuMs(pid: number, mainThread = false): number {
  const fields = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const silence = (ms: number) => new Uint8Array((ms * 8000) / 1000).fill(0xff);

/**
 * Keeps the line open with silence until the agent has been quiet `quietMs` (and `atLeastMs` have passed), and has
 * spoken after `since` when given (a slow reply is waited for, up to `limitMs`, not talked over by the next turn).
 */
async function untilQuiet(caller: MediaStreamCaller, quietMs: number, atLeastMs: number, since?: number, limitMs = 10_000): Promise<void> {
  const started = performance.now();
  for (;;) {
    await caller.play(silence(100));
    const now = performance.now();
    const last = caller.heard.arrivals.at(-1) ?? 0;
    const spoke = since === undefined || last >= since;
    if ((now - started >= atLeastMs && now - last >= quietMs && spoke) || now - started > limitMs || !caller.open) return;
  }
}

export interface CallOutcome {
  /** Per caller turn: first agent audio after the end of the caller's speech, ms; null when none came within 5 s. */
  replies: Array<number | null>;
  seconds: number;
}

/** One call: `turns` times the caller says `words`, then listens until the reply is over; then hangs up. */
export async function phoneCall(url: string, words: Utterance, turns: number, options: { delayMs?: number; greeting?: boolean } = {}): Promise<CallOutcome> {
  await sleep(options.delayMs ?? 0);
  const caller = await MediaStreamCaller.connect(url);
  const started = performance.now();
  const replies: Array<number | null> = [];
  try {
    if (options.greeting) await untilQuiet(caller, 400, 300);
    for (let turn = 0; turn < turns && caller.open; turn++) {
      const playedAt = performance.now();
      await caller.play(words.mulaw);
      const speechEnd = playedAt + words.speechEndMs;
      await untilQuiet(caller, 400, 600, speechEnd);
      const first = caller.heard.arrivals.find((at) => at >= speechEnd);
      replies.push(first !== undefined && first - speechEnd <= 5000 ? first - speechEnd : null);
    }
  } finally {
    if (caller.open) await caller.hangUp();
  }
  return { replies, seconds: (performance.now() - started) / 1000 };
}
