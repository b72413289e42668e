import { describe, expect, it } from 'vitest';
import {
  applyGainDb,
  bytesToInt16,
  clipToInt16,
  concatSamples,
  linearToDb,
  float32ToInt16,
  gatedLoudnessDb,
  int16ToBytes,
  int16ToFloat32,
  normalizeLoudness,
  peak,
  rms,
  rmsDbfs,
} from '../../src/audio/index.js';
import { speech } from '../support/audio-signal.js';

describe('PCM helpers', () => {
  it('converts Int16 <-> Float32 losslessly and clips floats out of range', () => {
    const samples = Int16Array.from([-32768, -1, 0, 1, 12345, 32767]);
    expect(float32ToInt16(int16ToFloat32(samples))).toEqual(samples);
    expect(Array.from(float32ToInt16(new Float32Array([1.5, -2, 1])))).toEqual([32767, -32768, 32767]);
  });

  it('clips numbers to the 16-bit range as numbers (callers may keep them outside typed arrays)', () => {
    expect([-40000, -32769, -32768, -5, 0, 32767, 32768, 1e9].map(clipToInt16)).toEqual([-32768, -32768, -32768, -5, 0, 32767, 32767, 32767]);
  });

  it('reads and writes little-endian bytes, from unaligned offsets too', () => {
    const bytes = int16ToBytes(Int16Array.from([1, -2, 0x1234]));
    expect(Array.from(bytes)).toEqual([1, 0, 0xfe, 0xff, 0x34, 0x12]);
    const shifted = new Uint8Array(7);
    shifted.set(bytes, 1);
    expect(Array.from(bytesToInt16(shifted.subarray(1)))).toEqual([1, -2, 0x1234]);
  });

  it('applies gain in dB and clips instead of wrapping', () => {
    const samples = Int16Array.from([1000, -1000, 20000, -20000]);
    expect(Array.from(applyGainDb(samples, 20 * Math.log10(2)))).toEqual([2000, -2000, 32767, -32768]);
    expect(Array.from(applyGainDb(samples, -6.020599913))).toEqual([500, -500, 10000, -10000]);
  });

  it('measures the RMS level of a full-scale sine at -3 dBFS', () => {
    const sine = Int16Array.from({ length: 16000 }, (_, i) => Math.round(32767 * Math.sin((2 * Math.PI * 440 * i) / 16000)));
    expect(rmsDbfs(sine)).toBeCloseTo(-3.01, 1);
    expect(rmsDbfs(new Int16Array(100))).toBe(-Infinity);
  });

  it('normalises speech to the target gated loudness, ignoring silence, without clipping', () => {
    const voice = speech('slt_01');
    const quiet = applyGainDb(voice, -18);
    const padded = new Int16Array(quiet.length * 3);
    padded.set(quiet, quiet.length);
    const { samples, gainDb } = normalizeLoudness(padded, 16000, { targetDb: -23 });
    expect(gatedLoudnessDb(samples, 16000)).toBeCloseTo(-23, 0);
    expect(gainDb).toBeGreaterThan(0);
    expect(peak(samples)).toBeLessThan(0.9);
  });

  it('caps the normalising gain so the peak stays under the ceiling', () => {
    const voice = speech('slt_01');
    const { samples } = normalizeLoudness(voice, 16000, { targetDb: -3, peakCeilingDb: -1 });
    expect(20 * Math.log10(peak(samples))).toBeLessThanOrEqual(-0.99);
    expect(normalizeLoudness(new Int16Array(1000), 16000).gainDb).toBe(0);
  });

  it('measures the peak of either sign, the RMS of nothing as 0 and of silence as -Infinity dB', () => {
    expect(peak(Int16Array.from([100, -16384, 8192]))).toBe(0.5);
    expect(peak(Int16Array.from([-100, 16384, -8192]))).toBe(0.5);
    expect(peak(Int16Array.from([-32768]))).toBe(1);
    expect(peak(new Int16Array(0))).toBe(0);
    expect(rms(new Int16Array(0))).toBe(0);
    expect(rms(Int16Array.from([16384, -16384]))).toBe(0.5);
    expect(rmsDbfs(new Int16Array(10))).toBe(-Infinity);
    expect(linearToDb(0)).toBe(-Infinity);
    expect(linearToDb(1)).toBe(0);
  });

  it('clips at exactly the 16-bit limits, both ways', () => {
    expect(Array.from(applyGainDb(Int16Array.from([32767, -32768, 16384, -16384]), 20 * Math.log10(2)))).toEqual([32767, -32768, 32767, -32768]);
    expect(Array.from(float32ToInt16(Float32Array.from([1, -1, 2, -2])))).toEqual([32767, -32768, 32767, -32768]);
    expect(Array.from(int16ToFloat32(Int16Array.from([-32768, 16384])))).toEqual([-1, 0.5]);
  });

  it('joins sample buffers into one copy, in order', () => {
    const shared = Int16Array.from([1, 2, 3, 4]);
    const joined = concatSamples([shared.subarray(2), Int16Array.from([9]), new Int16Array(0), shared.subarray(0, 1)]);
    expect(Array.from(joined)).toEqual([3, 4, 9, 1]);
    shared[2] = 7;
    expect(joined[0]).toBe(3);
  });
});
