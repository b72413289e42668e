/**
 * Silero VAD batched across calls (SileroPool): many detectors' frames in one inference give each detector the
 * same speech/silence decisions as unbatched Silero run frame by frame in this thread, on recordings of real
 * callers (test/fixtures/human: 17 clips; human-calls: a phone call through mu-law at 8 kHz).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { SileroPool, SileroVad, sileroInference } from '../src/engines/index.js';
import { resample } from '../src/audio/resampler.js';
import { decodeCall } from '../src/transports/file/run-call.js';
import { readPcmWav } from './engines-fixtures.js';

const frame = 512;

async function probabilities(vad: SileroVad, pcm: Int16Array): Promise<number[]> {
  const out: number[] = [];
  for (let at = 0; at + frame <= pcm.length; at += frame) out.push(await vad.probability(pcm.subarray(at, at + frame)));
  return out;
}

async function recordings(): Promise<Array<{ name: string; pcm: Int16Array }>> {
  const clips = Array.from({ length: 17 }, (_, i) => `dev_${String(i + 1).padStart(2, '0')}.wav`).map((name) => ({ name, pcm: readPcmWav(`test/fixtures/human/${name}`).samples }));
  const call = await decodeCall(readFileSync('test/fixtures/human-calls/parcel-8k-ulaw.wav'));
  return [...clips, { name: 'parcel-8k-ulaw.wav', pcm: await resample(call.samples, call.sampleRate, 16000) }];
}

describe('Silero VAD batched across calls', () => {
  test('every call gets the decisions unbatched Silero makes, frame for frame (probabilities within 1e-4)', async () => {
    const all = await recordings();
    const pool = new SileroPool();
    try {
      // All recordings at once, as concurrent calls: their frames meet in the worker's batches.
      const batched = await Promise.all(all.map(({ pcm }) => probabilities(new SileroVad(pool.channel()), pcm)));
      expect(pool.counts.largest).toBeGreaterThanOrEqual(all.length / 2);
      let frames = 0;
      for (const [i, { name, pcm }] of all.entries()) {
        const alone = await probabilities(new SileroVad(sileroInference()), pcm);
        expect(batched[i]!.length, name).toBe(alone.length);
        frames += alone.length;
        const worst = Math.max(...alone.map((p, k) => Math.abs(p - batched[i]![k]!)));
        expect(worst, name).toBeLessThan(1e-4);
        const decisionsDiffer = alone.filter((p, k) => p >= 0.5 !== batched[i]![k]! >= 0.5).length;
        expect(decisionsDiffer, name).toBe(0);
      }
      expect(frames).toBeGreaterThan(1500);
    } finally {
      await pool.stop();
    }
  });

  test('a lone call is not kept waiting for others: its steps go one by one', async () => {
    const pool = new SileroPool();
    try {
      const vad = new SileroVad(pool.channel());
      await probabilities(vad, readPcmWav('test/fixtures/human/dev_01.wav').samples);
      expect(pool.counts.steps).toBe(pool.counts.batches);
    } finally {
      await pool.stop();
    }
  });
});
