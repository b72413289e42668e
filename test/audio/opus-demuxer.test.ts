/**
 * The streaming Opus demuxer on real streams (Shoal's Ogg Opus encoder, Chromium MediaRecorder's WebM): the same
 * packets whether the bytes come whole or one byte at a time; the decoded length matches the source; bad bytes are
 * an AudioFormatError naming what is wrong.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AudioFormatError, decodeAudio, OggOpusStreamEncoder, OpusDemuxer, opusPacketSamples, OpusStreamDecoder, parseWav } from '../../src/audio/index.js';

const webm = new Uint8Array(readFileSync(join(import.meta.dirname, '../fixtures/audio/dev_12-mediarecorder.webm')));
const speech = parseWav(new Uint8Array(readFileSync(join(import.meta.dirname, '../fixtures/human/dev_12.wav')))).samples;
const encoder = new OggOpusStreamEncoder({ sampleRate: 16000 });
const ogg = Buffer.concat([...encoder.write(speech), ...encoder.end()]);

function demux(bytes: Uint8Array, pieceBytes: number) {
  const demuxer = new OpusDemuxer(1 << 20);
  const packets: Uint8Array[] = [];
  let head;
  for (let at = 0; at < bytes.length; at += pieceBytes) {
    const pieces = demuxer.push(bytes.subarray(at, at + pieceBytes));
    head ??= pieces.head;
    packets.push(...pieces.packets);
  }
  return { head, packets };
}

describe('OpusDemuxer', () => {
  it.each([
    ['Ogg Opus', ogg],
    ['WebM Opus', webm],
  ])('%s: one byte at a time gives the packets of the whole stream, as long as the speech', (_name, bytes) => {
    const whole = demux(bytes, bytes.length);
    const byByte = demux(bytes, 1);
    expect(byByte.head).toEqual(whole.head);
    expect(byByte.packets).toEqual(whole.packets);
    const seconds = whole.packets.reduce((sum, packet) => sum + opusPacketSamples(packet), 0) / 48000;
    // MediaRecorder, recording in real time, may start a frame late.
    expect(seconds).toBeGreaterThan(speech.length / 16000 - 0.03);
    expect(seconds).toBeLessThan(speech.length / 16000 + 1);
    const decoder = new OpusStreamDecoder(whole.head!, 16000);
    const samples = whole.packets.reduce((sum, packet) => sum + decoder.decode(packet).length, 0);
    decoder.close();
    expect(samples / 16000).toBeCloseTo(seconds - whole.head!.preSkip / 48000, 2);
  });

  it('decodeAudio reads the WebM file', async () => {
    const decoded = await decodeAudio(webm);
    expect(decoded.sampleRate).toBe(48000);
    expect(decoded.samples.length / 48000).toBeGreaterThan(speech.length / 16000 - 0.03);
  });

  it.each([
    ['a WAV file', Buffer.from('RIFF\0\0\0\0WAVEfmt '), /Ogg Opus or WebM Opus stream from its first byte; these bytes start 52 49 46 46/],
    ['an Ogg page with a bad CRC', Buffer.concat([ogg.subarray(0, 22), Buffer.from([0, 0, 0, 0]), ogg.subarray(26)]), /CRC check/],
    ['Ogg that is not Opus', (() => {
      const copy = Buffer.from(ogg);
      copy.write('Vorbis!!', 28, 'latin1');
      return copy;
    })(), /CRC|OpusHead/],
    ['a WebM file without an Opus track', Buffer.from(webm).fill(0x58, 0x67, 0x6d), /no Opus audio track \(found XXXXXX\)/],
    ['WebM cut into garbage', Buffer.concat([webm.subarray(0, 0x98), Buffer.alloc(64)]), /malformed/],
  ])('refuses %s with a message naming the problem', (_name, bytes, message) => {
    expect(() => demux(bytes, 100)).toThrow(AudioFormatError);
    expect(() => demux(bytes, 100)).toThrow(message);
  });
});
