/**
 * Silero VAD at 8 kHz (256-sample windows, 32 samples of context): a phone line's audio is scored as it arrives
 * instead of being resampled to 16 kHz. Its speech/silence decisions are compared with the 16 kHz path the same
 * audio took before (upsampled to 16 kHz, then Silero), on the 8 kHz phone recording (test/fixtures/human-calls)
 * and telephone-band versions (8 kHz, G.711 mu-law) of the 17 human clips (test/fixtures/human).
 */
import { readFileSync } from 'node:fs';
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { createFrame, decodeMuLaw, encodeMuLaw } from '../../src/audio/index.js';
import { resample } from '../../src/audio/resampler.js';
import { SileroPool, SileroVad, VadFrameSizeError, sileroInference } from '../../src/engines/index.js';
import { segmentUtterances } from '../../src/pipeline/index.js';
import { decodeCall } from '../../src/transports/file/file-call.js';
import { readPcmWav } from '../support/engines-fixtures.js';

const everyFrame = { quietBelowDbfs: -Infinity };

async function probabilities(vad: SileroVad, pcm: Int16Array, sampleRate: number): Promise<number[]> {
  const frame = vad.frameSamplesAt(sampleRate)!;
  const out: number[] = [];
  for (let at = 0; at + frame <= pcm.length; at += frame) out.push(await vad.probability(pcm.subarray(at, at + frame), sampleRate));
  return out;
}

/** Where the agent's segmenter finds speech starting and its last voice in 32 ms frames' probabilities, ms. */
async function utterances(probabilities: number[]): Promise<number[]> {
  const scored = probabilities.map((probability, i) => ({ frame: createFrame(new Int16Array(256), 8000, i * 32), probability, arrivedMs: i * 32 }));
  const events = await lastValueFrom(from(scored).pipe(segmentUtterances(), toArray()));
  return events.flatMap((e) => (e.type === 'speech-start' ? [e.atMs] : e.type === 'speech-end' ? [e.lastVoiceMs] : []));
}

const clipNames = Array.from({ length: 17 }, (_, i) => `dev_${String(i + 1).padStart(2, '0')}.wav`);

/** A clip as a phone line carries it: resampled to 8 kHz and through G.711 mu-law. */
async function telephoneBand(pcm16k: Int16Array): Promise<Int16Array> {
  return decodeMuLaw(encodeMuLaw(await resample(pcm16k, 16000, 8000)));
}

async function phoneCall(): Promise<Int16Array> {
  const call = await decodeCall(readFileSync('test/fixtures/human-calls/parcel-8k-ulaw.wav'));
  expect(call.sampleRate).toBe(8000);
  return call.samples;
}

/** Frames decided differently (speech at 0.5), and the utterances' starts and ends, of `heard` against `reference`. */
async function compare(heard: number[], reference: number[]): Promise<{ frames: number; differing: number; sameUtterances: boolean; worstEdgeMs: number }> {
  const frames = Math.min(heard.length, reference.length);
  let differing = 0;
  for (let k = 0; k < frames; k++) if (heard[k]! >= 0.5 !== reference[k]! >= 0.5) differing++;
  const [a, b] = [await utterances(heard), await utterances(reference)];
  const sameUtterances = a.length === b.length;
  const worstEdgeMs = sameUtterances ? Math.max(0, ...a.map((ms, k) => Math.abs(ms - b[k]!))) : Infinity;
  return { frames, differing, sameUtterances, worstEdgeMs };
}

const silero = () => new SileroVad(sileroInference(), everyFrame);

describe('Silero VAD at 8 kHz', () => {
  test('on telephone-band human clips it decides as wideband Silero does, at least as closely as the upsampled path (tolerance below)', async () => {
    const totals = { frames: 0, narrow: 0, upsampled: 0 };
    const otherUtterances: string[] = [];
    let worstEdgeMs = 0;
    for (const name of clipNames) {
      const wideband = readPcmWav(`test/fixtures/human/${name}`).samples;
      const line = await telephoneBand(wideband);
      const reference = await probabilities(silero(), wideband, 16000);
      const narrow = await compare(await probabilities(silero(), line, 8000), reference);
      const upsampled = await compare(await probabilities(silero(), await resample(line, 8000, 16000), 16000), reference);
      totals.frames += narrow.frames;
      totals.narrow += narrow.differing;
      totals.upsampled += upsampled.differing;
      if (narrow.sameUtterances) worstEdgeMs = Math.max(worstEdgeMs, narrow.worstEdgeMs);
      else otherUtterances.push(name);
    }
    console.log(JSON.stringify({ ...totals, worstEdgeMs, otherUtterances }));
    // Tolerance: at most 4 % of the frames decided otherwise than wideband Silero, and no more than the upsampled
    // path; the same utterances on all clips but one, their starts and ends within 5 frames. The one is the short
    // "yes" (dev_01): through mu-law it peaks at 0.46 at 8 kHz and 0.57 upsampled, against a threshold of 0.5.
    expect(totals.frames).toBeGreaterThan(1500);
    expect(totals.narrow / totals.frames).toBeLessThanOrEqual(0.04);
    expect(totals.narrow).toBeLessThanOrEqual(totals.upsampled);
    expect(otherUtterances.length).toBeLessThanOrEqual(1);
    expect(worstEdgeMs).toBeLessThanOrEqual(5 * 32);
  });

  test('on the 8 kHz phone recording it finds the utterances the upsampled path found, their starts within 2 frames', async () => {
    const call = await phoneCall();
    const narrow = await probabilities(silero(), call, 8000);
    const upsampled = await probabilities(silero(), await resample(call, 8000, 16000), 16000);
    const result = await compare(narrow, upsampled);
    const [a, b] = [await utterances(narrow), await utterances(upsampled)];
    const startsMs = a.filter((_, k) => k % 2 === 0).map((ms, k) => Math.abs(ms - b[2 * k]!));
    console.log(JSON.stringify({ ...result, narrow: a, upsampled: b }));
    expect(result.frames).toBeGreaterThan(1000);
    expect(result.differing / result.frames).toBeLessThanOrEqual(0.02);
    expect(result.sameUtterances).toBe(true);
    expect(Math.max(...startsMs)).toBeLessThanOrEqual(2 * 32);
    // The first answer ends 544 ms later at 8 kHz: the recording steps from the clip's digital silence to the line's
    // -70 dBFS noise there, which Silero at 8 kHz scores up to 0.52 (0.00 upsampled).
    expect(result.worstEdgeMs).toBeLessThanOrEqual(600);
  });

  test('batched 8 kHz calls, alongside 16 kHz ones on the same worker, get the probabilities unbatched Silero gives (within 1e-4)', async () => {
    const lines = await Promise.all(clipNames.slice(0, 10).map(async (name) => ({ name, pcm: await telephoneBand(readPcmWav(`test/fixtures/human/${name}`).samples) })));
    const pool = new SileroPool(undefined, 1);
    try {
      const wideLines = await Promise.all(lines.slice(0, 4).map(async ({ pcm }) => resample(pcm, 8000, 16000)));
      const [narrow, wide] = await Promise.all([
        Promise.all(lines.map(({ pcm }) => probabilities(new SileroVad(pool.channel(), everyFrame), pcm, 8000))),
        Promise.all(wideLines.map((pcm) => probabilities(new SileroVad(pool.channel(), everyFrame), pcm, 16000))),
      ]);
      expect(pool.counts.largest).toBeGreaterThanOrEqual(lines.length / 2);
      for (const [i, { name, pcm }] of lines.entries()) {
        const alone = await probabilities(new SileroVad(sileroInference(), everyFrame), pcm, 8000);
        expect(narrow[i]!.length, name).toBe(alone.length);
        expect(Math.max(...alone.map((p, k) => Math.abs(p - narrow[i]![k]!))), name).toBeLessThan(1e-4);
      }
      for (const [i, pcm] of wideLines.entries()) {
        const alone = await probabilities(new SileroVad(sileroInference(), everyFrame), pcm, 16000);
        expect(Math.max(...alone.map((p, k) => Math.abs(p - wide[i]![k]!)))).toBeLessThan(1e-4);
      }
    } finally {
      await pool.stop();
    }
  });

  test('frames of the wrong size for their rate, or at a rate Silero does not score, are refused', async () => {
    const vad = new SileroVad(sileroInference());
    expect(vad.frameSamplesAt(8000)).toBe(256);
    expect(vad.frameSamplesAt(11025)).toBeUndefined();
    await expect(vad.probability(new Int16Array(512), 8000)).rejects.toBeInstanceOf(VadFrameSizeError);
    await expect(vad.probability(new Int16Array(256), 16000)).rejects.toBeInstanceOf(VadFrameSizeError);
    await expect(vad.probability(new Int16Array(256), 11025)).rejects.toThrow(/256 samples at 8 kHz/);
    expect(await vad.probability(new Int16Array(256), 8000)).toBeLessThan(0.5);
  });
});
