/**
 * Phone load from outside: starts `shoal agent` as its own process and drives its telephony media-stream
 * endpoint over WebSocket like a carrier would (20 ms mu-law frames in real time, marks echoed), N calls at once,
 * staggered. Per N: calls admitted and refused, whether every refusal was a clean busy line (busy tone, mark,
 * close 1000) and how fast; the admitted calls' caller turns answered within 5 s, and reply latency p50/p95
 * (end of the caller's utterance in the recording → first agent audio frame received). The agent runs with its
 * default capacity unless --max-calls is given. Prints one JSON line with the load average.
 * Run: npx tsx bench/phone-load.ts [--calls 1,4,8,12,16] [--max-calls N]   (about 2 min)
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { decodeMuLaw, encodeMuLaw, parseWav } from '../src/audio/index.js';
import { MediaStreamCaller } from '../src/transports/index.js';
import { startShoal } from './capacity/child.js';
import { load, p } from './capacity/measure.js';

const argument = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const counts = (argument('--calls') ?? '1,4,8,12,16').split(',').map(Number);
const maxCalls = argument('--max-calls');
const answerWithinMs = 5000;
const staggerMs = 500;
const tailMs = answerWithinMs + 500;

const wav = parseWav(readFileSync(new URL('../test/fixtures/calls/booking-8k-ulaw.wav', import.meta.url)));
const recording = encodeMuLaw(wav.samples);

/** Where each caller utterance ends in the recording (ms): voiced 20 ms frames followed by ≥ 700 ms of quiet. */
function utteranceEnds(mulaw: Uint8Array): number[] {
  const pcm = decodeMuLaw(mulaw);
  const frame = 160;
  const ends: number[] = [];
  let lastVoiced = -Infinity;
  for (let at = 0, index = 0; at + frame <= pcm.length; at += frame, index++) {
    let energy = 0;
    for (let i = at; i < at + frame; i++) energy += pcm[i]! * pcm[i]!;
    const voiced = Math.sqrt(energy / frame) > 500;
    const ms = index * 20;
    if (voiced) lastVoiced = ms + 20;
    else if (lastVoiced > 0 && ms - lastVoiced >= 700 && ends.at(-1) !== lastVoiced) ends.push(lastVoiced);
  }
  if (lastVoiced > 0 && ends.at(-1) !== lastVoiced) ends.push(lastVoiced);
  return ends;
}

const ends = utteranceEnds(recording);
const silence = new Uint8Array((tailMs * 8000) / 1000).fill(0xff);
const played = new Uint8Array(recording.length + silence.length);
played.set(recording);
played.set(silence, recording.length);

interface CallOutcome {
  admitted: boolean;
  /** A refused call: busy tone heard, its mark sent, socket closed 1000 by the agent; and how long that took. */
  cleanRefusal?: boolean;
  refusedWithinMs?: number;
  replies: Array<number | null>;
}

async function oneCall(url: string, delayMs: number): Promise<CallOutcome> {
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  const caller = await MediaStreamCaller.connect(url);
  const startedAt = performance.now();
  await caller.play(played);
  const admitted = !caller.marks.includes('busy-line-played');
  if (!admitted) {
    const { code } = await caller.closed;
    const closedAt = performance.now();
    return { admitted, cleanRefusal: code === 1000 && caller.heard.bytes > 0, refusedWithinMs: closedAt - startedAt, replies: [] };
  }
  if (caller.open) await caller.hangUp();
  const replies = ends.map((endMs) => {
    const due = startedAt + endMs;
    const first = caller.heard.arrivals.find((t) => t >= due);
    return first !== undefined && first - due <= answerWithinMs ? first - due : null;
  });
  return { admitted, replies };
}

const agent = await startShoal(['agent', '--port', '0', '--mode', 'low-latency', ...(maxCalls ? ['--max-calls', maxCalls] : [])], /open (\S+) and press/);
const capacity = Number(/up to (\d+) calls at once/.exec(agent.output())?.[1]);
const telephony = `${agent.url.replace(/^http/, 'ws')}telephony`;
const rows = [];
try {
  const idleRssMb = agent.rssMb();
  await oneCall(telephony, 0); // warm-up
  for (const calls of counts) {
    const loadBefore = load();
    let peakRss = agent.rssMb() ?? 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, agent.rssMb() ?? 0)), 250);
    const results = await Promise.all(Array.from({ length: calls }, (_, i) => oneCall(telephony, i * staggerMs)));
    clearInterval(sampler);
    const replies = results.flatMap((r) => r.replies);
    const answered = replies.filter((r): r is number => r !== null);
    const refused = results.filter((r) => !r.admitted);
    rows.push({
      calls,
      admitted: results.length - refused.length,
      refused: refused.length,
      refusals_clean: refused.every((r) => r.cleanRefusal),
      refused_within_ms_max: refused.length ? Math.round(Math.max(...refused.map((r) => r.refusedWithinMs!))) : null,
      admitted_turns_answered: answered.length,
      admitted_turns: replies.length,
      reply_p50_ms: p(answered, 50),
      reply_p95_ms: p(answered, 95),
      peak_rss_mb: peakRss,
      load_average_before: loadBefore,
    });
  }
  process.stdout.write(
    `${JSON.stringify({ bench: 'phone-load', machine: { cpus: cpus().length, node: process.version }, max_calls: capacity, caller_turns_per_call: ends.length, answer_within_ms: answerWithinMs, idle_rss_mb: idleRssMb, rows, load_average_after: load(), agent_exit_code_after_sigterm: await agent.stop() })}\n`,
  );
} finally {
  if (agent.child.exitCode === null) await agent.stop();
}
process.exit(0);
