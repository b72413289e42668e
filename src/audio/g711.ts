/**
 * G.711 companding (ITU-T G.711): mu-law and A-law, 8-bit codes <-> 16-bit linear PCM.
 * Encoding goes through 64 Ki-entry tables built on first use, decoding through 256-entry tables.
 */

const MULAW_BIAS = 0x84;
const MULAW_CLIP = 32635;

function muLawEncodeSample(sample: number): number {
  let s = sample;
  const sign = s < 0 ? 0x80 : 0;
  if (sign) s = -s;
  if (s > MULAW_CLIP) s = MULAW_CLIP;
  s += MULAW_BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

function muLawDecodeSample(code: number): number {
  const u = ~code & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = ((((u & 0x0f) << 3) + MULAW_BIAS) << exponent) - MULAW_BIAS;
  return u & 0x80 ? -magnitude : magnitude;
}

function aLawEncodeSample(sample: number): number {
  let s = sample >> 3;
  let mask: number;
  if (s >= 0) {
    mask = 0xd5;
  } else {
    mask = 0x55;
    s = -s - 1;
  }
  // s < 4096 (a 16-bit sample shifted by 3): the highest segment is 7.
  let segment = 0;
  while (s >= 0x20 << segment) segment++;
  const mantissa = segment < 2 ? (s >> 1) & 0x0f : (s >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

function aLawDecodeSample(code: number): number {
  const a = code ^ 0x55;
  let magnitude = (a & 0x0f) << 4;
  const segment = (a & 0x70) >> 4;
  if (segment === 0) magnitude += 8;
  else magnitude = (magnitude + 0x108) << (segment - 1);
  return a & 0x80 ? magnitude : -magnitude;
}

let muLawEncodeTable: Uint8Array | undefined;
let aLawEncodeTable: Uint8Array | undefined;
let muLawDecodeTable: Int16Array | undefined;
let aLawDecodeTable: Int16Array | undefined;

function buildEncodeTable(encode: (sample: number) => number): Uint8Array {
  const table = new Uint8Array(65536);
  for (let i = 0; i < 65536; i++) table[i] = encode(i >= 32768 ? i - 65536 : i);
  return table;
}

function buildDecodeTable(decode: (code: number) => number): Int16Array {
  const table = new Int16Array(256);
  for (let i = 0; i < 256; i++) table[i] = decode(i);
  return table;
}

function encodeWith(table: Uint8Array, samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = table[samples[i]! & 0xffff]!;
  return out;
}

function decodeWith(table: Int16Array, codes: Uint8Array): Int16Array {
  const out = new Int16Array(codes.length);
  for (let i = 0; i < codes.length; i++) out[i] = table[codes[i]!]!;
  return out;
}

export function encodeMuLaw(samples: Int16Array): Uint8Array {
  muLawEncodeTable ??= buildEncodeTable(muLawEncodeSample);
  return encodeWith(muLawEncodeTable, samples);
}

export function decodeMuLaw(codes: Uint8Array): Int16Array {
  muLawDecodeTable ??= buildDecodeTable(muLawDecodeSample);
  return decodeWith(muLawDecodeTable, codes);
}

export function encodeALaw(samples: Int16Array): Uint8Array {
  aLawEncodeTable ??= buildEncodeTable(aLawEncodeSample);
  return encodeWith(aLawEncodeTable, samples);
}

export function decodeALaw(codes: Uint8Array): Int16Array {
  aLawDecodeTable ??= buildDecodeTable(aLawDecodeSample);
  return decodeWith(aLawDecodeTable, codes);
}
