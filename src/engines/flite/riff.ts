/** Reads the 16-bit PCM WAV that flite writes. */
export function parseFliteWav(bytes: Uint8Array): { samples: Int16Array; sampleRate: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('flite output is not a WAV file');
  let sampleRate = 0;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = view.getUint32(at + 4, true);
    if (tag(at) === 'fmt ') sampleRate = view.getUint32(at + 12, true);
    if (tag(at) === 'data') {
      const count = Math.min(size, bytes.length - at - 8) >> 1;
      const samples = new Int16Array(count);
      for (let i = 0; i < count; i++) samples[i] = view.getInt16(at + 8 + i * 2, true);
      return { samples, sampleRate };
    }
    at += 8 + size + (size & 1);
  }
  throw new Error('flite output has no data chunk');
}
