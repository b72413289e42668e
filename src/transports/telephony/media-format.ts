import { bytesToInt16, decodeALaw, decodeMuLaw, encodeALaw, encodeMuLaw, int16ToBytes } from '../../audio/index.js';

/** How a carrier's audio is coded on the wire: G.711 (PCMU, PCMA) or 16-bit linear PCM, 8 or 16 kHz, mono. */
export interface MediaFormat {
  codec: 'pcmu' | 'pcma' | 'l16';
  sampleRate: 8_000 | 16_000;
  /** Byte order of L16 samples: RTP payloads (RFC 3551) are big-endian, raw PCM streams little-endian. */
  byteOrder: 'little' | 'big';
}

/** A carrier announced a media format Shoal cannot code; the stream is refused instead of decoded as noise. */
export class UnsupportedMediaFormatError extends Error {
  override readonly name = 'UnsupportedMediaFormatError';
  constructor(
    readonly carrier: string,
    readonly announced: string,
  ) {
    super(
      `${carrier}: unsupported media format ${announced}; supported: PCMU (mu-law) 8000, PCMA (A-law) 8000, L16 8000 or 16000 mono. ` +
        `Set the carrier's stream codec to one of these.`,
    );
  }
}

/** The format a carrier announced, or an UnsupportedMediaFormatError naming what was announced. */
export function mediaFormat(
  carrier: string,
  announced: { encoding: string; sampleRate: number; channels?: number },
  l16ByteOrder: MediaFormat['byteOrder'] = 'little',
): MediaFormat {
  const encoding = announced.encoding.toLowerCase();
  const rate = Number(announced.sampleRate);
  const described = `${announced.encoding}/${announced.sampleRate}${announced.channels && announced.channels !== 1 ? `/${announced.channels}ch` : ''}`;
  if (announced.channels !== undefined && announced.channels !== 1) throw new UnsupportedMediaFormatError(carrier, described);
  const codec = /mulaw|pcmu|ulaw/.test(encoding) ? 'pcmu' : /alaw|pcma/.test(encoding) ? 'pcma' : /l16|slin|linear|raw|pcm16/.test(encoding) ? 'l16' : undefined;
  if (!codec) throw new UnsupportedMediaFormatError(carrier, described);
  if (codec === 'l16' ? rate !== 8_000 && rate !== 16_000 : rate !== 8_000) throw new UnsupportedMediaFormatError(carrier, described);
  return { codec, sampleRate: rate as MediaFormat['sampleRate'], byteOrder: codec === 'l16' ? l16ByteOrder : 'little' };
}

export const muLaw8k: MediaFormat = { codec: 'pcmu', sampleRate: 8_000, byteOrder: 'little' };

/** Bytes per sample on the wire. */
export function bytesPerSample(format: MediaFormat): number {
  return format.codec === 'l16' ? 2 : 1;
}

export function decodeMedia(format: MediaFormat, bytes: Uint8Array): Int16Array {
  switch (format.codec) {
    case 'pcmu':
      return decodeMuLaw(bytes);
    case 'pcma':
      return decodeALaw(bytes);
    case 'l16':
      return format.byteOrder === 'little' ? bytesToInt16(bytes) : swapBytes(bytesToInt16(bytes));
  }
}

export function encodeMedia(format: MediaFormat, samples: Int16Array): Uint8Array {
  switch (format.codec) {
    case 'pcmu':
      return encodeMuLaw(samples);
    case 'pcma':
      return encodeALaw(samples);
    case 'l16':
      return int16ToBytes(format.byteOrder === 'little' ? samples : swapBytes(samples));
  }
}

function swapBytes(samples: Int16Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    out[i] = ((s & 0xff) << 8) | ((s >> 8) & 0xff);
  }
  return out;
}
