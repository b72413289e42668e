import { describe, expect, test } from 'vitest';
import { LowPassFilter } from '../../src/audio/index.js';

const rate = 16000;
const tone = (hz: number, seconds = 1) => Int16Array.from({ length: rate * seconds }, (_, i) => Math.round(10000 * Math.sin((2 * Math.PI * hz * i) / rate)));
/** Output power over input power in dB, away from the ends. */
function gainDb(hz: number): number {
  const input = tone(hz);
  const output = LowPassFilter.apply(input, 3800, rate);
  let inPower = 0;
  let outPower = 0;
  for (let i = 1000; i < input.length - 1000; i++) {
    inPower += input[i]! ** 2;
    outPower += output[i]! ** 2;
  }
  return 10 * Math.log10(outPower / inPower + 1e-12);
}

describe('a low-pass filter for 16-bit PCM', () => {
  test('passes the band under its cutoff and stops what is above it', () => {
    for (const hz of [300, 1000, 3000, 3400]) expect(Math.abs(gainDb(hz)), `${hz} Hz`).toBeLessThan(0.1);
    expect(gainDb(3800)).toBeCloseTo(-6, 0);
    for (const hz of [4200, 5000, 7500]) expect(gainDb(hz), `${hz} Hz`).toBeLessThan(-70);
  });

  test('keeps time: an impulse comes out where it went in, and a recording keeps its length', () => {
    const impulse = new Int16Array(1000);
    impulse[500] = 20000;
    const out = LowPassFilter.apply(impulse, 3800, rate);
    expect(out).toHaveLength(1000);
    expect(out.indexOf(Math.max(...out))).toBe(500);
    expect(out[500]).toBe(Math.round(20000 * (2 * 3800) / rate));
  });

  test('filtering in pieces gives what filtering at once gives, the held-back samples last', () => {
    const input = tone(1234, 0.2).map((v, i) => v + ((i * 7919) % 2001) - 1000);
    const whole = LowPassFilter.apply(input, 3800, rate);
    const filter = new LowPassFilter(3800, rate);
    const pieces: number[] = [];
    for (let at = 0; at < input.length; at += 333) pieces.push(...filter.filter(input.subarray(at, at + 333)));
    expect(pieces).toHaveLength(input.length - filter.lookahead);
    pieces.push(...filter.end());
    expect(Int16Array.from(pieces)).toEqual(whole);
    expect(filter.end()).toHaveLength(0);
  });

  test('a constant comes out unchanged (unit gain at 0 Hz)', () => {
    const out = LowPassFilter.apply(new Int16Array(2000).fill(20000), 3800, rate);
    expect([...out.subarray(200, 1800)].every((v) => v === 20000)).toBe(true);
  });

  test('a recording shorter than the look-ahead still comes out whole', () => {
    const short = Int16Array.from([1000, -1000, 500]);
    expect(LowPassFilter.apply(short, 3800, rate)).toHaveLength(3);
    expect(LowPassFilter.apply(new Int16Array(0), 3800, rate)).toHaveLength(0);
  });

  test('full scale in, no wrap-around out', () => {
    const square = Int16Array.from({ length: 2000 }, (_, i) => (Math.floor(i / 20) % 2 === 0 ? 32767 : -32768));
    const out = LowPassFilter.apply(square, 3800, rate);
    // A square wave's ringing overshoots full scale: clipped, not wrapped to the other sign.
    expect(Math.max(...out)).toBe(32767);
    expect(Math.min(...out)).toBe(-32768);
    expect(out[10]).toBeGreaterThan(0);
    expect(out[30]).toBeLessThan(0);
  });

  test('a cutoff outside the band is refused', () => {
    expect(() => new LowPassFilter(0, rate)).toThrow(RangeError);
    expect(() => new LowPassFilter(8000, rate)).toThrow(/between 0 and half the 16000 Hz rate/);
  });
});
