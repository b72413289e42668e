/**
 * Silero VAD batched across calls (SileroPool), and its quiet gate: many detectors' frames in one inference
 * give each detector the same speech/silence decisions as unbatched Silero run on every frame in this thread,
 * on recordings of real callers (test/fixtures/human: 17 clips; human-calls: a phone call through mu-law at 8 kHz).
 */
import { readFileSync } from 'node:fs';
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { createFrame } from '../../src/audio/index.js';
import { resample } from '../../src/audio/resampler.js';
import { SileroPool, SileroVad, sileroInference, type WindowTimer } from '../../src/engines/index.js';
import { segmentUtterances } from '../../src/pipeline/index.js';
import { decodeCall } from '../../src/transports/file/file-call.js';
import { readPcmWav } from '../support/engines-fixtures.js';

const frame = 512;
const everyFrame = { quietBelowDbfs: -Infinity };
const quietGate = { quietBelowDbfs: -55 };

async function probabilities(vad: SileroVad, pcm: Int16Array): Promise<number[]> {
  const out: number[] = [];
  for (let at = 0; at + frame <= pcm.length; at += frame) out.push(await vad.probability(pcm.subarray(at, at + frame)));
  return out;
}

/** Where the agent's segmenter finds speech starting and its last voice in a recording's frame probabilities, ms. */
async function utterances(probabilities: number[]): Promise<number[]> {
  const scored = probabilities.map((probability, i) => ({ frame: createFrame(new Int16Array(frame), 16000, (i * frame) / 16), probability, arrivedMs: (i * frame) / 16 }));
  const events = await lastValueFrom(from(scored).pipe(segmentUtterances(), toArray()));
  return events.flatMap((e) => (e.type === 'speech-start' ? [e.atMs] : e.type === 'speech-end' ? [e.lastVoiceMs] : []));
}

async function recordings(): Promise<Array<{ name: string; pcm: Int16Array }>> {
  const clips = Array.from({ length: 17 }, (_, i) => `dev_${String(i + 1).padStart(2, '0')}.wav`).map((name) => ({ name, pcm: readPcmWav(`test/fixtures/human/${name}`).samples }));
  const call = await decodeCall(readFileSync('test/fixtures/human-calls/parcel-8k-ulaw.wav'));
  return [...clips, { name: 'parcel-8k-ulaw.wav', pcm: await resample(call.samples, call.sampleRate, 16000) }];
}

/** Every recording through its own detector, all at once as concurrent calls: their frames meet in the worker's batches. */
/**
 * A pool whose hand-offs take what is waiting at once (no window): these recordings are fed as fast as they are
 * scored, and a window would pace every frame. The window has a test of its own below.
 */
const unpaced = () => new SileroPool(undefined, undefined, undefined, 0);

async function concurrently(pool: SileroPool, all: Array<{ pcm: Int16Array }>, options = {}): Promise<number[][]> {
  return Promise.all(all.map(({ pcm }) => probabilities(new SileroVad(pool.channel(), options), pcm)));
}

describe('Silero VAD batched across calls', () => {
  test('every call gets the probabilities unbatched Silero gives, frame for frame (within 1e-4)', async () => {
    const all = await recordings();
    const pool = unpaced();
    try {
      const batched = await concurrently(pool, all, everyFrame);
      expect(pool.counts.largest).toBeGreaterThanOrEqual(all.length / 2);
      let frames = 0;
      for (const [i, { name, pcm }] of all.entries()) {
        const alone = await probabilities(new SileroVad(sileroInference(), everyFrame), pcm);
        expect(batched[i]!.length, name).toBe(alone.length);
        frames += alone.length;
        const worst = Math.max(...alone.map((p, k) => Math.abs(p - batched[i]![k]!)));
        expect(worst, name).toBeLessThan(1e-4);
      }
      expect(frames).toBeGreaterThan(1500);
    } finally {
      await pool.stop();
    }
  });

  test('with the quiet gate at -55 dBFS, the speech/silence decisions stay those of Silero on every frame', async () => {
    const all = await recordings();
    const pool = unpaced();
    try {
      const gated = await concurrently(pool, all, quietGate);
      let differing = 0;
      let frames = 0;
      let skipped = 0;
      for (const [i, { name, pcm }] of all.entries()) {
        const alone = await probabilities(new SileroVad(sileroInference(), everyFrame), pcm);
        frames += alone.length;
        skipped += gated[i]!.filter((p) => p === 0).length;
        differing += alone.filter((p, k) => p >= 0.5 !== gated[i]![k]! >= 0.5).length;
        const [heard, reference] = [await utterances(gated[i]!), await utterances(alone)];
        expect(heard.length, name).toBe(reference.length);
        heard.forEach((ms, k) => expect(Math.abs(ms - reference[k]!), name).toBeLessThanOrEqual(2 * 32));
      }
      // Tolerance: at most 1 % of the frames decided differently, and the same utterances in each recording, their
      // starts and ends within two frames.
      expect(differing / frames).toBeLessThanOrEqual(0.01);
      // The phone call's line noise between answers is what the gate skips.
      expect(skipped / frames).toBeGreaterThan(0.3);
      console.log(JSON.stringify({ frames, differing, skipped }));
    } finally {
      await pool.stop();
    }
  });

  test('a lone call is not kept waiting for others: its steps go one by one', async () => {
    const pool = new SileroPool();
    try {
      const vad = new SileroVad(pool.channel());
      await probabilities(vad, readPcmWav('test/fixtures/human/dev_01.wav').samples);
      expect(pool.counts.steps).toBe(pool.counts.inferences);
      expect(pool.counts.messages).toBe(pool.counts.inferences);
    } finally {
      await pool.stop();
    }
  });

  test('calls whose frames arrive spread over time share one hand-off to the worker per window', async () => {
    // The window on a timer moved by hand: each hand-off is known exactly.
    let nowMs = 0;
    const due: Array<{ atMs: number; run: () => void }> = [];
    const timer: WindowTimer = { now: () => nowMs, after: (ms, run) => void due.push({ atMs: nowMs + ms, run }) };
    const windowMs = 10;
    const pool = new SileroPool(undefined, 1, undefined, windowMs, timer);
    const pcm = readPcmWav('test/fixtures/human/dev_08.wav').samples;
    const calls = 10;
    const frames = 15;
    try {
      // Each call's 32 ms frames, the calls 3 ms apart, as a phone line's frames reach the agent.
      const vads = Array.from({ length: calls }, () => new SileroVad(pool.channel(), everyFrame));
      await Promise.all(vads.map((vad) => vad.ready()));
      const arrivals = vads.flatMap((vad, c) => Array.from({ length: frames }, (_, k) => ({ atMs: 3 * c + 32 * k, vad, k }))).sort((a, b) => a.atMs - b.atMs);
      let waiting: Array<Promise<number>> = [];
      /** Moves the timer to `ms`; a window that falls due sends what waits, and the test waits for its answer. */
      const advanceTo = async (ms: number) => {
        for (;;) {
          const next = due.sort((a, b) => a.atMs - b.atMs)[0];
          if (!next || next.atMs > ms) break;
          due.shift();
          nowMs = next.atMs;
          next.run();
          await Promise.all(waiting);
          waiting = [];
        }
        nowMs = ms;
      };
      const scored: Array<Promise<number>> = [];
      for (const { atMs, vad, k } of arrivals) {
        await advanceTo(atMs);
        const probability = vad.probability(pcm.subarray(k * frame, (k + 1) * frame));
        scored.push(probability);
        waiting.push(probability);
        // The detector hands its step to the pool a few promise turns later: let it, at this time.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await advanceTo(Infinity);
      await Promise.all(scored);
      // One hand-off per window: it opens at the oldest waiting frame and takes every frame that came before it closed.
      let expected = 0;
      for (let i = 0; i < arrivals.length; expected++) {
        const closes = arrivals[i]!.atMs + windowMs;
        while (i < arrivals.length && arrivals[i]!.atMs < closes) i++;
      }
      expect(pool.counts.steps).toBe(calls * frames);
      expect(pool.counts.messages).toBe(expected);
      // Without the window each frame would go alone to an idle worker (one message per frame).
      expect(pool.counts.messages).toBeLessThanOrEqual(pool.counts.steps / 3);
    } finally {
      await pool.stop();
    }
  });
});
