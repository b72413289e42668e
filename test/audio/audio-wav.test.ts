import { describe, expect, it } from 'vitest';
import { AudioFormatError, encodeWav, parseWav, STREAMED_DATA_SIZE, wavHeader } from '../../src/audio/index.js';
import { fixtureBytes, joinBytes, speech } from '../support/audio-signal.js';

/** Builds a WAV by hand, independently of encodeWav, for the reader's less common layouts. */
function handMadeWav(opts: {
  formatCode: number;
  channels: number;
  sampleRate: number;
  bits: number;
  data: Uint8Array;
  extensibleSubformat?: number;
  dataSize?: number;
}): Uint8Array {
  const extensible = opts.extensibleSubformat !== undefined;
  const fmtSize = extensible ? 40 : 16;
  const out = new Uint8Array(12 + 8 + fmtSize + 8 + opts.data.length);
  const view = new DataView(out.buffer);
  const put = (offset: number, text: string) => [...text].forEach((c, i) => (out[offset + i] = c.charCodeAt(0)));
  put(0, 'RIFF');
  view.setUint32(4, out.length - 8, true);
  put(8, 'WAVE');
  put(12, 'fmt ');
  view.setUint32(16, fmtSize, true);
  view.setUint16(20, extensible ? 0xfffe : opts.formatCode, true);
  view.setUint16(22, opts.channels, true);
  view.setUint32(24, opts.sampleRate, true);
  const align = (opts.channels * opts.bits) / 8;
  view.setUint32(28, opts.sampleRate * align, true);
  view.setUint16(32, align, true);
  view.setUint16(34, opts.bits, true);
  if (extensible) {
    view.setUint16(36, 22, true);
    view.setUint16(38, opts.bits, true);
    view.setUint32(40, opts.channels === 2 ? 3 : 4, true);
    view.setUint16(44, opts.extensibleSubformat!, true);
    out.set([0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71], 46);
  }
  const dataOffset = 20 + fmtSize;
  put(dataOffset, 'data');
  view.setUint32(dataOffset + 4, opts.dataSize ?? opts.data.length, true);
  out.set(opts.data, dataOffset + 8);
  return out;
}

const ramp = Int16Array.from({ length: 64 }, (_, i) => (i - 32) * 1000);

describe('WAV reading and writing', () => {
  it('round-trips real speech through encodeWav and parseWav sample for sample', () => {
    const samples = speech('slt_00');
    const parsed = parseWav(encodeWav(samples, 16000));
    expect(parsed.sampleRate).toBe(16000);
    expect(parsed.channels).toBe(1);
    expect(parsed.streamed).toBe(false);
    expect(parsed.samples).toEqual(samples);
  });

  it('reads a streamed WAV whose header carries placeholder sizes by trusting the byte count', () => {
    const samples = speech('slt_03');
    const header = wavHeader(24000);
    const view = new DataView(header.buffer);
    expect(view.getUint32(40, true)).toBe(STREAMED_DATA_SIZE);
    expect(view.getUint32(4, true)).toBe(0xffffff24);
    const body = encodeWav(samples, 24000).subarray(44);
    const parsed = parseWav(joinBytes([header, body, new Uint8Array([7])]));
    expect(parsed.streamed).toBe(true);
    expect(parsed.sampleRate).toBe(24000);
    expect(parsed.samples).toEqual(samples);
  });

  it('reads the mu-law telephony fixture at 8 kHz with its full duration', () => {
    const parsed = parseWav(fixtureBytes('calls/booking-8k-ulaw.wav'));
    expect(parsed.encoding).toBe('mulaw');
    expect(parsed.sampleRate).toBe(8000);
    expect(parsed.samples.length).toBe(102600);
    expect(Math.max(...parsed.samples.subarray(8000, 40000))).toBeGreaterThan(1000);
  });

  it('reads 8-bit unsigned, 24-bit and 32-bit integer and 32-bit float PCM to the same 16-bit values', () => {
    const n = ramp.length;
    const u8 = Uint8Array.from(ramp, (s) => (s >> 8) + 128);
    const s24 = new Uint8Array(n * 3);
    const s32 = new Uint8Array(n * 4);
    const f32 = new Uint8Array(n * 4);
    ramp.forEach((s, i) => {
      const v = s * 256;
      s24.set([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff], i * 3);
      new DataView(s32.buffer).setInt32(i * 4, s * 65536, true);
      new DataView(f32.buffer).setFloat32(i * 4, s / 32768, true);
    });
    expect(parseWav(handMadeWav({ formatCode: 1, channels: 1, sampleRate: 8000, bits: 8, data: u8 })).samples).toEqual(
      Int16Array.from(ramp, (s) => (s >> 8) * 256),
    );
    expect(parseWav(handMadeWav({ formatCode: 1, channels: 1, sampleRate: 8000, bits: 24, data: s24 })).samples).toEqual(ramp);
    expect(parseWav(handMadeWav({ formatCode: 1, channels: 1, sampleRate: 8000, bits: 32, data: s32 })).samples).toEqual(ramp);
    const float = parseWav(handMadeWav({ formatCode: 3, channels: 1, sampleRate: 8000, bits: 32, data: f32 }));
    expect(float.encoding).toBe('float');
    expect(float.samples).toEqual(ramp);
  });

  it('downmixes stereo to mono by averaging the channels', () => {
    const frames = 32;
    const data = new Uint8Array(frames * 4);
    const view = new DataView(data.buffer);
    for (let i = 0; i < frames; i++) {
      view.setInt16(i * 4, 1000 * i, true);
      view.setInt16(i * 4 + 2, -200 * i, true);
    }
    const parsed = parseWav(handMadeWav({ formatCode: 1, channels: 2, sampleRate: 16000, bits: 16, data }));
    expect(parsed.channels).toBe(2);
    expect(Array.from(parsed.samples)).toEqual(Array.from({ length: frames }, (_, i) => 400 * i));
  });

  it('reads WAVE_FORMAT_EXTENSIBLE with a PCM and an A-law subformat', () => {
    const data = new Uint8Array(ramp.buffer.slice(0));
    const pcm = parseWav(handMadeWav({ formatCode: 1, channels: 1, sampleRate: 16000, bits: 16, data, extensibleSubformat: 1 }));
    expect(pcm.samples).toEqual(ramp);
    const alaw = parseWav(
      handMadeWav({ formatCode: 6, channels: 1, sampleRate: 8000, bits: 8, data: new Uint8Array([0xd5, 0x55, 0xaa]), extensibleSubformat: 6 }),
    );
    expect(alaw.encoding).toBe('alaw');
    expect(Array.from(alaw.samples)).toEqual([8, -8, 32256]);
  });

  describe('bad input gives AudioFormatError saying what is wrong', () => {
    const good = encodeWav(speech('slt_05'), 16000);
    const cases: [string, Uint8Array, RegExp][] = [
      ['an empty buffer', new Uint8Array(0), /empty/],
      ['a header cut short', good.subarray(0, 30), /truncated|no fmt/],
      ['data shorter than its declared size', good.subarray(0, 1000), /truncated: the data chunk declares/],
      ['wrong magic', joinBytes([new TextEncoder().encode('RIFX'), good.subarray(4)]), /not a WAV file/],
      ['a header without data chunk', good.subarray(0, 36), /no data chunk/],
      [
        'an unsupported codec',
        handMadeWav({ formatCode: 0x55, channels: 1, sampleRate: 8000, bits: 16, data: new Uint8Array(4) }),
        /unsupported WAV codec 0x0055/,
      ],
    ];
    for (const [name, bytes, message] of cases) {
      it(name, () => {
        expect(() => parseWav(bytes)).toThrow(AudioFormatError);
        expect(() => parseWav(bytes)).toThrow(message);
      });
    }
  });
});
