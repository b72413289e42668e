/**
 * A lost frame on a scenario's line is concealed as a receiver does (the last pitch period repeated, fading), so
 * the agent's VAD hears a short answer with one frame lost much as it hears it whole: the 17 human clips at
 * telephone band (8 kHz, mu-law), each with its loudest 20 ms frame lost.
 */
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createFrame, decodeMuLaw, encodeMuLaw } from '../../src/audio/index.js';
import { resample } from '../../src/audio/resampler.js';
import { SileroVad, sileroInference } from '../../src/engines/index.js';
import { segmentUtterances } from '../../src/pipeline/index.js';
import { concealFrame } from '../../src/testing/conditions.js';
import { readPcmWav } from '../support/engines-fixtures.js';

const frame = 160; // 20 ms at 8 kHz

async function speechProbabilities(pcm: Int16Array): Promise<number[]> {
  const vad = new SileroVad(sileroInference(), { quietBelowDbfs: -Infinity });
  const window = vad.frameSamplesAt(8000)!;
  const out: number[] = [];
  for (let at = 0; at + window <= pcm.length; at += window) out.push(await vad.probability(pcm.subarray(at, at + window), 8000));
  return out;
}

async function utteranceCount(probabilities: number[]): Promise<number> {
  const scored = probabilities.map((probability, i) => ({ frame: createFrame(new Int16Array(256), 8000, i * 32), probability, arrivedMs: i * 32 }));
  const events = await lastValueFrom(from(scored).pipe(segmentUtterances(), toArray()));
  return events.filter((event) => event.type === 'speech-start').length;
}

function loudestFrame(pcm: Int16Array): number {
  let loudest = 0;
  let most = -1;
  for (let at = frame; at + frame <= pcm.length; at += frame) {
    let energy = 0;
    for (let i = at; i < at + frame; i++) energy += pcm[i]! * pcm[i]!;
    if (energy > most) [most, loudest] = [energy, at];
  }
  return loudest;
}

describe('a lost frame on the line', () => {
  it('is concealed so that the VAD decides nearly as on the whole clip, where silence in its place changes twice as many decisions', async () => {
    let concealedOff = 0;
    let zeroedOff = 0;
    const utterances: Array<[string, number, number, number]> = [];
    for (let n = 1; n <= 17; n++) {
      const name = `dev_${String(n).padStart(2, '0')}.wav`;
      const pcm = decodeMuLaw(encodeMuLaw(await resample(readPcmWav(`test/fixtures/human/${name}`).samples, 16000, 8000)));
      const at = loudestFrame(pcm);
      const zeroed = pcm.slice();
      zeroed.fill(0, at, at + frame);
      const concealed = pcm.slice();
      concealed.set(concealFrame(pcm.slice(Math.max(0, at - 2 * frame), at), frame, 0, 20), at);
      const [whole, withSilence, withConcealment] = await Promise.all([pcm, zeroed, concealed].map(speechProbabilities));
      const off = (heard: number[]) => heard.filter((p, k) => p >= 0.5 !== whole![k]! >= 0.5).length;
      concealedOff += off(withConcealment!);
      zeroedOff += off(withSilence!);
      utterances.push([name, await utteranceCount(whole!), await utteranceCount(withSilence!), await utteranceCount(withConcealment!)]);
    }
    // Every clip the VAD hears whole, it hears with the frame concealed (the "yes" of dev_01 is too faint at 8 kHz either way).
    for (const [name, whole, , concealed] of utterances) if (whole > 0) expect(concealed, name).toBe(whole);
    // Silence in the lost frame's place: a clip heard whole is no longer heard (dev_05), and more 32 ms decisions change.
    // Silence in the lost frame's place changes more than twice as many of the VAD's 32 ms decisions (10 against 4).
    expect(concealedOff).toBeLessThanOrEqual(4);
    expect(zeroedOff).toBeGreaterThan(2 * concealedOff);
  }, 60_000);
});
