import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeALaw, decodeMuLaw, encodeALaw, encodeMuLaw, rmsDbfs } from '../../src/audio/index.js';
import { speech } from '../support/audio-signal.js';

const everySample = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);

function snrDb(reference: Int16Array, decoded: Int16Array): number {
  let signal = 0;
  let noise = 0;
  for (let i = 0; i < reference.length; i++) {
    signal += reference[i]! ** 2;
    noise += (reference[i]! - decoded[i]!) ** 2;
  }
  return 10 * Math.log10(signal / noise);
}

/** Every code decoded by an independent implementation (sox), kept as a fixture. */
const soxDecoded = JSON.parse(readFileSync(new URL('../fixtures/audio/g711-sox-decode.json', import.meta.url), 'utf8')) as { muLaw: number[]; aLaw: number[] };
const everyCode = Uint8Array.from({ length: 256 }, (_, i) => i);

describe('G.711 companding', () => {
  it('decodes every code to the same value as sox, for both laws', () => {
    expect(Array.from(decodeMuLaw(everyCode))).toEqual(soxDecoded.muLaw);
    expect(Array.from(decodeALaw(everyCode))).toEqual(soxDecoded.aLaw);
  });

  it('codes silence as positive zero and keeps the sign of the smallest negative sample', () => {
    expect(Array.from(encodeMuLaw(Int16Array.from([0, -1, 1, 32767, -32768])))).toEqual([0xff, 0x7f, 0xff, 0x80, 0x00]);
    expect(encodeALaw(Int16Array.from([0]))[0]).toBe(0xd5);
    expect(encodeALaw(Int16Array.from([-1]))[0]).toBe(0x55);
  });

  it('mu-law: every 16-bit value round-trips within half a quantisation step of its segment', () => {
    const decoded = decodeMuLaw(encodeMuLaw(everySample));
    for (let i = 0; i < everySample.length; i++) {
      const s = everySample[i]!;
      const bound = Math.abs(s) > 32635 ? Math.abs(s) - 32635 + 512 : Math.abs(s) / 16 + 8;
      if (Math.abs(decoded[i]! - s) > bound) throw new Error(`mu-law ${s} -> ${decoded[i]} exceeds ${bound}`);
    }
  });

  it('A-law: every 16-bit value round-trips within half a quantisation step of its segment', () => {
    const decoded = decodeALaw(encodeALaw(everySample));
    for (let i = 0; i < everySample.length; i++) {
      const s = everySample[i]!;
      const bound = Math.abs(s) / 16 + 16;
      if (Math.abs(decoded[i]! - s) > bound) throw new Error(`A-law ${s} -> ${decoded[i]} exceeds ${bound}`);
    }
  });

  it('uses the standard codes for silence and full scale', () => {
    expect(Array.from(encodeMuLaw(new Int16Array([0, 32767, -32768])))).toEqual([0xff, 0x80, 0x00]);
    expect(Array.from(encodeALaw(new Int16Array([0, -1, 32767, -32768])))).toEqual([0xd5, 0x55, 0xaa, 0x2a]);
    expect(Array.from(decodeMuLaw(new Uint8Array([0xff, 0x7f, 0x80, 0x00])))).toEqual([0, 0, 32124, -32124]);
  });

  it('decoding then re-encoding every code gives the same code back', () => {
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const mu = encodeMuLaw(decodeMuLaw(codes));
    const a = encodeALaw(decodeALaw(codes));
    for (let i = 0; i < 256; i++) {
      if (i !== 0x7f) expect(mu[i]).toBe(i);
      expect(a[i]).toBe(i);
    }
  });

  it('keeps real speech above 30 dB SNR', () => {
    const samples = speech('rms_02');
    expect(rmsDbfs(samples)).toBeGreaterThan(-40);
    expect(snrDb(samples, decodeMuLaw(encodeMuLaw(samples)))).toBeGreaterThan(30);
    expect(snrDb(samples, decodeALaw(encodeALaw(samples)))).toBeGreaterThan(30);
  });
});
