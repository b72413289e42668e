import { describe, expect, it } from 'vitest';
import { concatFrames, createFrame, frameDurationMs, frameEndMs, splitFrame } from '../../src/audio/frame.js';

describe('AudioFrame helpers', () => {
  const frame = createFrame(Int16Array.from({ length: 1600 }, (_, i) => i), 16000, 1000);

  it('knows its duration and end time in ms', () => {
    expect(frameDurationMs(frame)).toBe(100);
    expect(frameEndMs(frame)).toBe(1100);
  });

  it('splits into frames with advancing timestamps and joins back to the same samples', () => {
    const parts = splitFrame(frame, 512);
    expect(parts.map((p) => p.samples.length)).toEqual([512, 512, 512, 64]);
    expect(parts[1]!.timestampMs).toBe(1032);
    const joined = concatFrames(parts);
    expect(Array.from(joined.samples)).toEqual(Array.from(frame.samples));
    expect(joined.timestampMs).toBe(1000);
  });

  it('refuses to join frames of different rates or to split by a bad size', () => {
    expect(() => concatFrames([frame, createFrame(new Int16Array(10), 8000)])).toThrow(/resample first/);
    expect(() => splitFrame(frame, 0)).toThrow(RangeError);
    expect(() => createFrame(new Int16Array(1), 0)).toThrow(/sample rate/);
  });
});
