import { describe, expect, it } from 'vitest';
import { gateSilence } from '../../src/engines/pocketsphinx/silence-gate.js';
import { withLineNoise } from '../support/engines-fixtures.js';

const frame = 160;
/** 0.5 s of quiet, 0.3 s of a 300 Hz tone, 0.5 s of quiet, all under -85 dBFS line noise. */
function answer(): Int16Array {
  const pcm = new Int16Array(0.8 * 16000);
  for (let i = 8000; i < 8000 + 4800; i++) pcm[i] = Math.round(3000 * Math.sin((2 * Math.PI * 300 * i) / 16000));
  return withLineNoise(pcm, -85, 500);
}
const zeroFrames = (pcm: Int16Array) =>
  Array.from({ length: Math.floor(pcm.length / frame) }, (_, f) => pcm.subarray(f * frame, (f + 1) * frame).every((s) => s === 0));

describe('the silence gate before a grammar pass', () => {
  it('zeroes the quiet far from speech and keeps speech and three frames either side as they were', () => {
    const pcm = answer();
    const before = pcm.slice();
    const gated = gateSilence(pcm);
    expect(pcm).toEqual(before);
    const zeroed = zeroFrames(gated);
    // The tone fills frames 50-79: kept with 47-49 and 80-82; everything else is zero.
    expect(zeroed.map((z, f) => (z ? '' : f)).filter((f) => f !== '')).toEqual(Array.from({ length: 36 }, (_, i) => 47 + i));
    expect(gated.subarray(47 * frame, 83 * frame)).toEqual(pcm.subarray(47 * frame, 83 * frame));
  });

  it('takes the threshold from the utterance: quiet speech under quiet noise is kept', () => {
    const pcm = answer().map((s) => Math.round(s / 8));
    expect(zeroFrames(gateSilence(Int16Array.from(pcm))).filter((z) => !z)).toHaveLength(36);
  });

  it('leaves audio shorter than a frame, and digital silence, as it is', () => {
    const short = Int16Array.from([5, -5, 7]);
    expect(gateSilence(short)).toEqual(short);
    expect(gateSilence(new Int16Array(1600))).toEqual(new Int16Array(1600));
  });
});
