/** Converts 16-bit PCM to floats in [-1, 1). */
export function int16ToFloat32(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i]! / 32768;
  return out;
}

/**
 * Converts floats to 16-bit PCM, clipping anything outside [-1, 1]. `fullScale` is the integer that 1.0 stands
 * for: 32768 for true float audio, 32767 for decoders that divided 16-bit integers by 32767.
 */
export function float32ToInt16(samples: Float32Array | Float64Array, fullScale = 32768): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = clipToInt16(Math.round(samples[i]! * fullScale));
  return out;
}

export function clipToInt16(value: number): number {
  return value > 32767 ? 32767 : value < -32768 ? -32768 : value;
}

/**
 * Reads little-endian 16-bit PCM from bytes. A trailing odd byte is ignored.
 * Copies, so the result is aligned and independent of the input buffer.
 */
export function bytesToInt16(bytes: Uint8Array): Int16Array {
  const count = bytes.length >> 1;
  const out = new Int16Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 2);
  for (let i = 0; i < count; i++) out[i] = view.getInt16(i * 2, true);
  return out;
}

/** Writes 16-bit PCM as little-endian bytes. */
export function int16ToBytes(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true);
  return out;
}

export function dbToLinear(db: number): number {
  return Math.pow(10, db / 20);
}

export function linearToDb(gain: number): number {
  return gain > 0 ? 20 * Math.log10(gain) : -Infinity;
}

/** Returns a copy scaled by `gainDb`, clipping to the 16-bit range. */
export function applyGainDb(samples: Int16Array, gainDb: number): Int16Array {
  const gain = dbToLinear(gainDb);
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = clipToInt16(Math.round(samples[i]! * gain));
  return out;
}

/** Root mean square of the samples, as a fraction of full scale (0..1). */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    sum += s * s;
  }
  return Math.sqrt(sum / samples.length) / 32768;
}

/** RMS level in dB relative to full scale; -Infinity for silence or no samples. */
export function rmsDbfs(samples: Int16Array): number {
  return linearToDb(rms(samples));
}

/** Peak absolute sample as a fraction of full scale (0..1). */
export function peak(samples: Int16Array): number {
  let max = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    const a = s < 0 ? -s : s;
    if (a > max) max = a;
  }
  return max / 32768;
}

/** Joins sample buffers into one new buffer (always a copy, so parts may be views of reused memory). */
export function concatSamples(parts: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
