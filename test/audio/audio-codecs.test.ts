import { describe, expect, it } from 'vitest';
import {
  AudioFormatError,
  bytesToInt16,
  createEncoder,
  decodeAudio,
  encodeAudio,
  resample,
  UnsupportedAudioSettingError,
  type AudioFormat,
} from '../../src/audio/index.js';
import { bestLag, correlationAt, joinBytes, speech } from '../support/audio-signal.js';

interface RoundTrip {
  format: AudioFormat;
  sampleRate: number;
  mp3Bitrate?: number;
  opusBitrate?: number;
  /** Extra decoded samples allowed beyond the input: codec delay plus frame padding. */
  slack: number;
  minCorrelation: number;
}

const cases: RoundTrip[] = [
  { format: 'wav', sampleRate: 16000, slack: 0, minCorrelation: 0.9999 },
  { format: 'wav', sampleRate: 44100, slack: 0, minCorrelation: 0.9999 },
  { format: 'mp3', sampleRate: 44100, mp3Bitrate: 128, slack: 1105 + 2 * 1152, minCorrelation: 0.9 },
  { format: 'mp3', sampleRate: 32000, mp3Bitrate: 64, slack: 1105 + 2 * 1152, minCorrelation: 0.9 },
  { format: 'mp3', sampleRate: 44100, mp3Bitrate: 192, slack: 1105 + 2 * 1152, minCorrelation: 0.9 },
  { format: 'opus', sampleRate: 48000, opusBitrate: 32000, slack: 0, minCorrelation: 0.9 },
  { format: 'opus', sampleRate: 48000, opusBitrate: 24, slack: 0, minCorrelation: 0.9 },
  { format: 'opus', sampleRate: 48000, opusBitrate: -1000, slack: 0, minCorrelation: 0.9 },
];

describe('encode to each format, then decode', () => {
  const voice = speech('slt_00');
  for (const c of cases) {
    const label = `${c.format} ${c.sampleRate} Hz${c.mp3Bitrate ? ` ${c.mp3Bitrate} kbps` : ''}${c.opusBitrate ? ` bitrate ${c.opusBitrate}` : ''}`;
    it(`${label}: same duration and correlation > ${c.minCorrelation} after alignment`, async () => {
      const input = await resample(voice, 16000, c.sampleRate);
      const encoder = await createEncoder(c);
      const chunks: Uint8Array[] = [];
      for (let offset = 0; offset < input.length; offset += 2205) chunks.push(encoder.write(input.subarray(offset, offset + 2205)));
      chunks.push(encoder.end());
      const bytes = joinBytes(chunks);
      const decoded = await decodeAudio(bytes);
      expect(decoded.sampleRate).toBe(c.sampleRate);
      expect(decoded.samples.length).toBeGreaterThanOrEqual(input.length);
      expect(decoded.samples.length).toBeLessThanOrEqual(input.length + c.slack);
      const lag = bestLag(input, decoded.samples, 2400, c.sampleRate);
      expect(Math.abs(lag)).toBeLessThanOrEqual(c.format === 'mp3' ? 1200 : 4);
      expect(correlationAt(input, decoded.samples, lag)).toBeGreaterThan(c.minCorrelation);
    });
  }

  it('pcm: headerless little-endian samples, byte for byte', async () => {
    const encoder = await createEncoder({ format: 'pcm', sampleRate: 16000 });
    expect(encoder.contentType).toBe('application/octet-stream');
    const bytes = joinBytes([encoder.write(voice.subarray(0, 1001)), encoder.write(voice.subarray(1001)), encoder.end()]);
    expect(bytesToInt16(bytes)).toEqual(voice);
  });

  it('resamples inside the encoder when the input rate differs from the output rate', async () => {
    const bytes = await encodeAudio(voice, 16000, { format: 'wav', sampleRate: 24000 });
    const decoded = await decodeAudio(bytes);
    expect(decoded.sampleRate).toBe(24000);
    expect(decoded.samples.length).toBe(Math.round((voice.length * 24000) / 16000));
  });
});

describe('streaming encoders emit bytes early', () => {
  const voice = speech('slt_05');

  it('wav sends a streamed header on the first write, then raw samples', async () => {
    const encoder = await createEncoder({ format: 'wav', sampleRate: 16000 });
    expect(encoder.contentType).toBe('audio/wav');
    const header = encoder.write(new Int16Array(0));
    expect(header.length).toBe(44);
    expect(new DataView(header.buffer, header.byteOffset).getUint32(40, true)).toBe(0xffffff00);
    expect(encoder.write(voice.subarray(0, 160)).length).toBe(320);
    expect(encoder.end().length).toBe(0);
  });

  it('mp3 produces its first frames before the end of a long input', async () => {
    const input = await resample(voice, 16000, 44100);
    const encoder = await createEncoder({ format: 'mp3' });
    expect(encoder.contentType).toBe('audio/mpeg');
    let bytesBeforeEnd = 0;
    for (let offset = 0; offset < 44100 * 0.5; offset += 4410) bytesBeforeEnd += encoder.write(input.subarray(offset, offset + 4410)).length;
    expect(bytesBeforeEnd).toBeGreaterThan(4000);
    encoder.end();
  });

  it('opus produces audio pages per write, before the end', async () => {
    const encoder = await createEncoder({ format: 'opus', opusBitrate: 32 });
    expect(encoder.contentType).toBe('audio/ogg');
    encoder.write(new Int16Array(0));
    const page = encoder.write(new Int16Array(4800).fill(1000));
    expect(page.length).toBeGreaterThan(27);
    expect(new TextDecoder().decode(page.subarray(0, 4))).toBe('OggS');
    encoder.end();
  });
});

describe('encoder settings are checked against the format table', () => {
  it('uses each format default rate when none is given', async () => {
    expect((await createEncoder({ format: 'wav' })).sampleRate).toBe(44100);
    expect((await createEncoder({ format: 'mp3', sampleRate: null })).sampleRate).toBe(44100);
    expect((await createEncoder({ format: 'opus' })).sampleRate).toBe(48000);
  });

  it.each([
    ['mp3', 22050, /Invalid sample rate 22050 for format mp3\. Supported: 32000, 44100/],
    ['mp3', 48000, /Supported: 32000, 44100/],
    ['opus', 24000, /Supported: 48000/],
    ['wav', 48000, /Supported: 8000, 16000, 24000, 32000, 44100/],
    ['pcm', 22050, /Supported: 8000, 16000, 24000, 32000, 44100/],
  ] as const)('%s at %i Hz is refused', async (format, sampleRate, message) => {
    await expect(createEncoder({ format, sampleRate })).rejects.toThrow(UnsupportedAudioSettingError);
    await expect(createEncoder({ format, sampleRate })).rejects.toThrow(message);
  });

  it('refuses unsupported bitrates and accepts opus bitrates in bps or kbps', async () => {
    await expect(createEncoder({ format: 'mp3', mp3Bitrate: 96 })).rejects.toThrow(/Supported: 64, 128, 192/);
    await expect(createEncoder({ format: 'opus', opusBitrate: 16000 })).rejects.toThrow(/Invalid opus bitrate 16000/);
    await expect(createEncoder({ format: 'opus', opusBitrate: 128 })).rejects.toThrow(UnsupportedAudioSettingError);
    for (const bitrate of [-1000, 24, 32, 48, 64, 24000, 64000]) {
      await expect(createEncoder({ format: 'opus', opusBitrate: bitrate })).resolves.toBeDefined();
    }
  });
});

describe('bad input to decodeAudio gives AudioFormatError, never a crash or a hang', () => {
  const wav = () => encodeAudio(speech('slt_03'), 16000, { format: 'wav', sampleRate: 16000 });
  const mp3 = () => encodeAudio(speech('slt_03'), 16000, { format: 'mp3', sampleRate: 32000 });
  const garbage = Uint8Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24);

  it.each([
    ['an empty buffer', async () => new Uint8Array(0), /empty/],
    ['random bytes', async () => garbage, /unrecognised audio format/],
    ['text', async () => new TextEncoder().encode('hello, this is not audio at all'), /unrecognised/],
    ['a truncated WAV', async () => (await wav()).subarray(0, 2000), /truncated/],
    ['a WAV with wrong magic', async () => joinBytes([new TextEncoder().encode('RIFF1234AVI '), (await wav()).subarray(12)]), /not WAVE/],
    ['an Ogg Vorbis header', async () => {
      const page = new Uint8Array(58);
      page.set(new TextEncoder().encode('OggS'), 0);
      page[26] = 1;
      page[27] = 30;
      page.set([1, ...new TextEncoder().encode('vorbis')], 28);
      return page;
    }, /only Ogg Opus/],
    ['an Ogg page cut short', async () => new TextEncoder().encode('OggS\0\x02'), /truncated/],
    ['an MP3 frame header followed by garbage', async () => joinBytes([new Uint8Array([0xff, 0xfb, 0x90, 0x64]), new Uint8Array(64)]), /MP3/],
    ['an ID3 tag with nothing after it', async () => new Uint8Array([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 20, ...new Uint8Array(20)]), /no audio/],
    ['a FLAC magic with garbage', async () => joinBytes([new TextEncoder().encode('fLaC'), garbage.subarray(0, 200)]), /FLAC/],
    ['half an MP3 header', async () => (await mp3()).subarray(0, 3), /unrecognised/],
  ])('%s', async (_name, make, message) => {
    const bytes = await make();
    const attempt = decodeAudio(bytes);
    await expect(attempt).rejects.toThrow(AudioFormatError);
    await expect(decodeAudio(bytes)).rejects.toThrow(message);
  });
});

describe('one-shot WAV encoding', () => {
  it('writes exact sizes in the header', async () => {
    const voice = speech('slt_05');
    const bytes = await encodeAudio(voice, 16000, { format: 'wav', sampleRate: 16000 });
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    expect(view.getUint32(40, true)).toBe(voice.length * 2);
    expect(view.getUint32(4, true)).toBe(bytes.length - 8);
  });
});

describe('encoder lifecycle', () => {
  it.each(['wav', 'pcm', 'mp3', 'opus'] as const)('%s refuses writes after end and after close', async (format) => {
    const ended = await createEncoder({ format });
    ended.write(new Int16Array(2000));
    ended.end();
    expect(() => ended.write(new Int16Array(10))).toThrow(/already ended/);
    ended.close();
    const cancelled = await createEncoder({ format, inputSampleRate: 16000 });
    cancelled.write(new Int16Array(2000));
    cancelled.close();
    expect(() => cancelled.write(new Int16Array(10))).toThrow(/already closed/);
    expect(() => cancelled.end()).toThrow(/already closed/);
  });
});
