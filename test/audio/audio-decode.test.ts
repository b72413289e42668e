import { describe, expect, it } from 'vitest';
import { decodeAudio, decodeAudioAt, encodeAudio, sniffContainer } from '../../src/audio/index.js';
import { correlationAt, fixtureBytes, joinBytes, speech } from '../support/audio-signal.js';

describe('decodeAudio sniffs the container and returns mono PCM', () => {
  it('decodes the FLAC fixture to the same samples as its WAV source', async () => {
    const flac = fixtureBytes('audio/slt_01.flac');
    expect(sniffContainer(flac)).toBe('flac');
    const decoded = await decodeAudio(flac);
    const source = speech('slt_01');
    expect(decoded.sampleRate).toBe(16000);
    expect(decoded.samples).toEqual(source);
  });

  it('decodes to a requested rate, e.g. 16 kHz for recognition', async () => {
    const decoded = await decodeAudioAt(fixtureBytes('calls/booking-8k-ulaw.wav'), 16000);
    expect(decoded.sampleRate).toBe(16000);
    expect(decoded.samples.length).toBe(2 * 102600);
  });

  it('decodes the mu-law telephony WAV', async () => {
    const decoded = await decodeAudio(fixtureBytes('calls/booking-8k-ulaw.wav'));
    expect(decoded.sampleRate).toBe(8000);
    expect(decoded.samples.length).toBe(102600);
  });

  it('finds an MP3 behind an ID3v2 tag', async () => {
    const voice = speech('slt_03');
    const mp3 = await encodeAudio(voice, 16000, { format: 'mp3', sampleRate: 32000, mp3Bitrate: 64 });
    const tag = new Uint8Array(10 + 300);
    tag.set([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 2, 44]);
    tag.set(new TextEncoder().encode('TIT2'), 10);
    const tagged = joinBytes([tag, mp3]);
    expect(sniffContainer(tagged)).toBe('mp3');
    const decoded = await decodeAudio(tagged);
    expect(decoded.sampleRate).toBe(32000);
    expect(decoded.samples.length).toBeGreaterThan(voice.length * 2);
  });

  it('recognises each container the encoders produce', async () => {
    const voice = speech('slt_05');
    expect(sniffContainer(await encodeAudio(voice, 16000, { format: 'wav', sampleRate: 16000 }))).toBe('wav');
    expect(sniffContainer(await encodeAudio(voice, 16000, { format: 'mp3', sampleRate: 32000 }))).toBe('mp3');
    expect(sniffContainer(await encodeAudio(voice, 16000, { format: 'opus' }))).toBe('ogg-opus');
  });

  it('decodes Ogg Opus made from 16 kHz speech back to 48 kHz with the same waveform', async () => {
    const voice = speech('rms_04');
    const decoded = await decodeAudio(await encodeAudio(voice, 16000, { format: 'opus', opusBitrate: 48 }));
    expect(decoded.sampleRate).toBe(48000);
    expect(decoded.samples.length).toBe(voice.length * 3);
    const every3rd = decoded.samples.filter((_, i) => i % 3 === 0);
    expect(correlationAt(voice, every3rd, 0)).toBeGreaterThan(0.9);
  });
});
