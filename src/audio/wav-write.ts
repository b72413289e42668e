import { int16ToBytes } from './pcm.js';

/** Placeholder data size written in a streamed WAV header, whose length is unknown when it is sent. */
export const STREAMED_DATA_SIZE = 0xffffff00;

export const WAV_HEADER_BYTES = 44;

/** A 44-byte header for mono 16-bit PCM. Without `dataBytes` it carries placeholder sizes (streamed WAV). */
export function wavHeader(sampleRate: number, dataBytes?: number): Uint8Array {
  const header = new Uint8Array(WAV_HEADER_BYTES);
  const view = new DataView(header.buffer);
  const dataSize = dataBytes ?? STREAMED_DATA_SIZE;
  writeAscii(header, 0, 'RIFF');
  view.setUint32(4, (dataSize + 36) >>> 0, true);
  writeAscii(header, 8, 'WAVE');
  writeAscii(header, 12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  writeAscii(header, 36, 'data');
  view.setUint32(40, dataSize, true);
  return header;
}

/** A complete WAV file (mono, 16-bit PCM) with exact sizes. */
export function encodeWav(samples: Int16Array, sampleRate: number): Uint8Array {
  const data = int16ToBytes(samples);
  const out = new Uint8Array(WAV_HEADER_BYTES + data.length);
  out.set(wavHeader(sampleRate, data.length), 0);
  out.set(data, WAV_HEADER_BYTES);
  return out;
}

function writeAscii(target: Uint8Array, offset: number, text: string): void {
  for (let i = 0; i < text.length; i++) target[offset + i] = text.charCodeAt(i);
}
