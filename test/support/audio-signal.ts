import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseWav } from '../../src/audio/index.js';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

export function fixtureBytes(relativePath: string): Uint8Array {
  return new Uint8Array(readFileSync(fixtures + relativePath));
}

/** A 16 kHz speech fixture as mono PCM. */
export function speech(name: string): Int16Array {
  return parseWav(fixtureBytes(`speech/${name}.wav`)).samples;
}

export function joinSamples(parts: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Normalised correlation of `a[i]` with `b[i + lag]` over their overlap. */
export function correlationAt(a: Int16Array, b: Int16Array, lag: number, start = 0, length = Infinity): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  const from = Math.max(start, -lag);
  const to = Math.min(a.length, b.length - lag, start + length);
  for (let i = from; i < to; i++) {
    const x = a[i]!;
    const y = b[i + lag]!;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb);
}

/** The lag (in samples, |lag| <= maxLag) that best aligns `b` to `a`, found on the loudest quarter second of `a`. */
export function bestLag(a: Int16Array, b: Int16Array, maxLag: number, sampleRate: number): number {
  const window = Math.min(a.length, sampleRate >> 2);
  let loudest = 0;
  let loudestEnergy = -1;
  for (let start = 0; start + window <= a.length; start += window >> 2) {
    let energy = 0;
    for (let i = start; i < start + window; i += 4) energy += a[i]! * a[i]!;
    if (energy > loudestEnergy) [loudest, loudestEnergy] = [start, energy];
  }
  let best = 0;
  let bestValue = -Infinity;
  for (let lag = -maxLag; lag <= maxLag; lag++) {
    const value = correlationAt(a, b, lag, loudest, window);
    if (value > bestValue) [best, bestValue] = [lag, value];
  }
  return best;
}
