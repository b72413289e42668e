/**
 * N Twilio-style callers in one process, dialling `shoal agent`'s telephony endpoint: each plays a recording of a
 * real caller (test/fixtures/human-calls/parcel-8k-ulaw.wav: 6 s of line noise, then three answers; the noise
 * between them shortened to 5 s) as 20 ms mu-law media frames in real time, echoing marks. Per call: whether it was admitted, how long it was connected
 * and, for each answer, the time from its end in the recording to the first audio frame of the agent's next
 * utterance (audio after 300 ms of none).
 * Prints one JSON line. Run: npx tsx bench/hosted-density/callers.ts --url ws://.../telephony --calls N
 *   [--stagger-ms 100] [--answers 3] [--lanes L --sequential M: L callers each making M calls one after another]
 */
import { readFileSync } from 'node:fs';
import { decodeMuLaw, encodeMuLaw, parseWav } from '../../src/audio/index.js';
import { MediaStreamCaller } from '../../src/transports/index.js';

const argument = (name: string, fallback?: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1]! : fallback;
};

/** A reply counts when its first audio arrives within this long after the caller's answer ends. */
const answerWithinMs = 5000;
/** Audio after at least this much quiet from the agent starts a new agent utterance (the stand-in sends 40 ms pieces in real time). */
const utteranceGapMs = 300;

const recording = encodeMuLaw(parseWav(readFileSync(new URL('../../test/fixtures/human-calls/parcel-8k-ulaw.wav', import.meta.url))).samples);

/** Where each answer starts and ends in the recording (ms): voiced 20 ms frames, apart by >= 700 ms of line noise. */
function answerSpans(mulaw: Uint8Array): Array<{ startMs: number; endMs: number }> {
  const pcm = decodeMuLaw(mulaw);
  const frame = 160;
  const spans: Array<{ startMs: number; endMs: number }> = [];
  for (let at = 0, index = 0; at + frame <= pcm.length; at += frame, index++) {
    let energy = 0;
    for (let i = at; i < at + frame; i++) energy += pcm[i]! * pcm[i]!;
    const ms = index * 20;
    if (Math.sqrt(energy / frame) <= 500) continue;
    const last = spans.at(-1);
    if (last && ms - last.endMs < 700) last.endMs = ms + 20;
    else spans.push({ startMs: ms, endMs: ms + 20 });
  }
  return spans;
}

/** Line noise between the answers, shortened to this: the reply fits, and the caller answers before the agent's 8 s no-input reprompt. */
const gapMs = 5000;

interface CallResult {
  admitted: boolean;
  connectedMs: number;
  /** Per answer: ms from its end to the agent's next audio, or null when none came within `answerWithinMs`. */
  replies: Array<number | null>;
}

/** The recording's opening (the greeting plays) and its first `answers` answers, 5 s of its line noise after each. */
function callAudio(answers: number): { audio: Uint8Array; ends: number[] } {
  const at = (ms: number) => Math.round((ms * 8000) / 1000);
  const parts: Uint8Array[] = [];
  const ends: number[] = [];
  let lengthMs = 0;
  for (const [i, span] of answerSpans(recording).slice(0, answers).entries()) {
    const fromMs = i === 0 ? 0 : span.startMs - 300;
    parts.push(recording.subarray(at(fromMs), at(Math.min(span.endMs + gapMs, (recording.length / 8000) * 1000))));
    lengthMs += span.endMs - fromMs;
    ends.push(lengthMs);
    lengthMs += gapMs;
  }
  const audio = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  parts.reduce((offset, part) => (audio.set(part, offset), offset + part.length), 0);
  return { audio, ends };
}

async function oneCall(url: string, audio: Uint8Array, ends: number[]): Promise<CallResult> {
  const caller = await MediaStreamCaller.connect(url);
  const startedAt = performance.now();
  await caller.play(audio);
  const admitted = !caller.marks.includes('busy-line-played');
  if (caller.open) await caller.hangUp();
  const connectedMs = performance.now() - startedAt;
  const replies = admitted
    ? ends.map((endMs) => {
        // The agent's first audio after the answer that starts an utterance: not the tail of one still arriving.
        const due = startedAt + endMs;
        const arrivals = caller.heard.arrivals;
        const first = arrivals.find((t, i) => t >= due && (i === 0 || t - arrivals[i - 1]! >= utteranceGapMs));
        return first !== undefined && first - due <= answerWithinMs ? Math.round(first - due) : null;
      })
    : [];
  return { admitted, connectedMs: Math.round(connectedMs), replies };
}

const url = argument('--url');
if (!url) throw new Error('--url ws://HOST:PORT/telephony is required');
const calls = Number(argument('--calls', '1'));
const staggerMs = Number(argument('--stagger-ms', '100'));
const sequential = Number(argument('--sequential', '1'));
const { audio, ends } = callAudio(Number(argument('--answers', '3')));
const results: CallResult[] = [];
let done = 0;
await Promise.all(
  Array.from({ length: calls }, async (_, lane) => {
    await new Promise((resolve) => setTimeout(resolve, lane * staggerMs));
    for (let i = 0; i < sequential; i++) {
      results.push(await oneCall(url, audio, ends));
      if (++done % 50 === 0 && sequential > 1) process.stderr.write(`${done} calls done\n`);
    }
  }),
);
process.stdout.write(`${JSON.stringify({ answers_per_call: ends.length, results })}\n`);
