import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWav } from '../../src/audio/index.js';
import { analyzeVoice } from '../../src/engines/index.js';
import { decodeOutput, postJson, postMsgpack, readTimed, startService, type RunningService } from '../support/service-harness.js';

const sentence = 'The quick brown fox jumps over the lazy dog near the quiet river bank.';
let server: RunningService;

beforeAll(async () => {
  server = await startService();
});
afterAll(async () => {
  await server.close();
});

async function synthesize(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await postJson(`${server.url}/v1/tts`, body, headers);
  expect(response.status, await response.clone().text().then((t) => t.slice(0, 300))).toBe(200);
  const { bytes } = await readTimed(response, performance.now());
  return { response, bytes };
}

describe('POST /v1/tts formats', () => {
  it('streams WAV at 44.1 kHz by default with placeholder sizes, holding audible speech of plausible length', async () => {
    const { response, bytes } = await synthesize({ text: sentence, format: 'wav' });
    expect(response.headers.get('content-type')).toBe('audio/wav');
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    expect(view.getUint32(40, true)).toBeGreaterThanOrEqual(0xffffff00);
    const wav = parseWav(bytes);
    expect(wav.streamed).toBe(true);
    expect(wav.sampleRate).toBe(44100);
    const out = await decodeOutput(bytes, 'wav');
    expect(out.durationMs).toBeGreaterThan(2500);
    expect(out.durationMs).toBeLessThan(8000);
    expect(out.levelDb).toBeGreaterThan(-35);
  });

  it.each([8000, 16000, 24000, 32000, 44100])('writes WAV at %i Hz', async (rate) => {
    const { bytes } = await synthesize({ text: 'Hello there.', format: 'wav', sample_rate: rate });
    expect(parseWav(bytes).sampleRate).toBe(rate);
  });

  it('writes headerless 16-bit PCM at the requested rate', async () => {
    const { response, bytes } = await synthesize({ text: sentence, format: 'pcm', sample_rate: 16000 });
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(bytes.length % 2).toBe(0);
    expect(String.fromCharCode(...bytes.subarray(0, 4))).not.toBe('RIFF');
    const out = await decodeOutput(bytes, 'pcm', 16000);
    expect(out.durationMs).toBeGreaterThan(2500);
    expect(out.levelDb).toBeGreaterThan(-35);
  });

  it('writes MP3 (the default format) at 44.1 kHz and at 32 kHz with the asked bitrate', async () => {
    const byDefault = await synthesize({ text: sentence });
    expect(byDefault.response.headers.get('content-type')).toBe('audio/mpeg');
    const decoded = await decodeOutput(byDefault.bytes, 'mp3');
    expect(decoded.sampleRate).toBe(44100);
    expect(decoded.durationMs).toBeGreaterThan(2500);
    expect(decoded.levelDb).toBeGreaterThan(-35);
    const low = await synthesize({ text: sentence, format: 'mp3', sample_rate: 32000, mp3_bitrate: 64 });
    const high = await synthesize({ text: sentence, format: 'mp3', sample_rate: 32000, mp3_bitrate: 192 });
    expect((await decodeOutput(low.bytes, 'mp3')).sampleRate).toBe(32000);
    expect(high.bytes.length / low.bytes.length).toBeGreaterThan(2.5);
  });

  it('writes Ogg Opus at 48 kHz, taking opus_bitrate in bps or kbps', async () => {
    const auto = await synthesize({ text: sentence, format: 'opus' });
    expect(auto.response.headers.get('content-type')).toBe('audio/ogg');
    expect(String.fromCharCode(...auto.bytes.subarray(0, 4))).toBe('OggS');
    const decoded = await decodeOutput(auto.bytes, 'opus');
    expect(decoded.sampleRate).toBe(48000);
    expect(decoded.durationMs).toBeGreaterThan(2500);
    expect(decoded.levelDb).toBeGreaterThan(-35);
    const kbps = await synthesize({ text: sentence, format: 'opus', opus_bitrate: 24 });
    const bps = await synthesize({ text: sentence, format: 'opus', opus_bitrate: 24000 });
    const high = await synthesize({ text: sentence, format: 'opus', opus_bitrate: 64000 });
    expect(Math.abs(kbps.bytes.length - bps.bytes.length)).toBeLessThan(bps.bytes.length * 0.05);
    expect(high.bytes.length).toBeGreaterThan(bps.bytes.length * 1.5);
  });

  it('gives the same audio for a MessagePack body as for JSON', async () => {
    const body = { text: sentence, format: 'pcm', sample_rate: 16000 };
    const json = await synthesize(body);
    const packed = await postMsgpack(`${server.url}/v1/tts`, body);
    expect(packed.status).toBe(200);
    const bytes = new Uint8Array(await packed.arrayBuffer());
    expect(Buffer.from(bytes).equals(Buffer.from(json.bytes))).toBe(true);
  });
});

describe('POST /v1/tts streaming', () => {
  it('sends the first audio long before a long text is finished', async () => {
    const text = Array.from({ length: 40 }, (_, i) => `This is sentence number ${i + 1} of a long answer that keeps going.`).join(' ');
    const started = performance.now();
    const response = await postJson(`${server.url}/v1/tts`, { text, format: 'pcm', sample_rate: 16000, chunk_length: 100 });
    const timed = await readTimed(response, started);
    expect(timed.parts).toBeGreaterThan(1);
    expect(timed.firstMs).toBeLessThan(timed.lastMs * 0.5);
    expect((await decodeOutput(timed.bytes, 'pcm', 16000)).durationMs).toBeGreaterThan(100_000);
  });
});

describe('POST /v1/tts voice and prosody', () => {
  const pcm = async (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    decodeOutput((await synthesize({ format: 'pcm', sample_rate: 16000, ...body }, headers)).bytes, 'pcm', 16000);

  it('speaks faster with prosody.speed 2 and slower with 0.5', async () => {
    const normal = await pcm({ text: sentence });
    const fast = await pcm({ text: sentence, prosody: { speed: 2 } });
    const slow = await pcm({ text: sentence, prosody: { speed: 0.5 } });
    expect(fast.durationMs / normal.durationMs).toBeLessThan(0.7);
    expect(slow.durationMs / normal.durationMs).toBeGreaterThan(1.5);
  });

  it('changes the level by prosody.volume dB', async () => {
    const normal = await pcm({ text: sentence, prosody: { volume: 0 } });
    const quiet = await pcm({ text: sentence, prosody: { volume: -12 } });
    expect(normal.levelDb - quiet.levelDb).toBeGreaterThan(10);
    expect(normal.levelDb - quiet.levelDb).toBeLessThan(14);
  });

  it('normalises loudness on the S2 models only, and only when normalize_loudness is true', async () => {
    const s1 = await pcm({ text: sentence, reference_id: 'slt' }, { model: 's1' });
    const s2 = await pcm({ text: sentence, reference_id: 'slt' }, { model: 's2-pro' });
    const s2Off = await pcm({ text: sentence, reference_id: 'slt', prosody: { normalize_loudness: false } }, { model: 's2-pro' });
    expect(Math.abs(s1.levelDb - s2Off.levelDb)).toBeLessThan(0.01);
    expect(Math.abs(s2.levelDb - s1.levelDb)).toBeGreaterThan(0.5);
  });

  it('maps each model header to its engine configuration', async () => {
    const free = await pcm({ text: 'Hello there.' }, { model: 's2.1-pro-free' });
    const implicit = await pcm({ text: 'Hello there.' });
    const s1 = await pcm({ text: 'Hello there.' }, { model: 's1' });
    expect(Buffer.from(implicit.samples.buffer).equals(Buffer.from(free.samples.buffer))).toBe(true);
    expect(Buffer.from(s1.samples.buffer).equals(Buffer.from(free.samples.buffer))).toBe(false);
  });

  it('uses built-in voices as reference_id', async () => {
    const slt = await pcm({ text: 'Hello there.', reference_id: 'slt' });
    const rms = await pcm({ text: 'Hello there.', reference_id: 'rms' });
    expect(Buffer.from(slt.samples.buffer).equals(Buffer.from(rms.samples.buffer))).toBe(false);
  });

  it('switches voices at <|speaker:N|> tags with a reference_id array', async () => {
    const both = await pcm({ text: '<|speaker:0|>Hello there. <|speaker:1|>Hi, how are you?', reference_id: ['slt', 'rms'] });
    const first = await pcm({ text: 'Hello there.', reference_id: 'slt' });
    const second = await pcm({ text: 'Hi, how are you?', reference_id: 'rms' });
    expect(Math.abs(both.durationMs - (first.durationMs + second.durationMs))).toBeLessThan(400);
    // Which voice speaks where: the first part has slt's pitch, the rest rms's (measured 170 Hz and 101 Hz alone).
    const split = Math.round((first.durationMs * 16000) / 1000);
    const pitch = (samples: Int16Array) => analyzeVoice(samples, 16000).pitchHz;
    const [slt, rms] = [pitch(first.samples), pitch(second.samples)];
    expect(Math.abs(pitch(both.samples.subarray(0, split)) - slt) / slt).toBeLessThan(0.1);
    expect(Math.abs(pitch(both.samples.subarray(split)) - rms) / rms).toBeLessThan(0.1);
    expect(slt).toBeGreaterThan(rms * 1.4);
  });

  it('accepts sampling parameters that a deterministic engine does not use', async () => {
    const a = await pcm({ text: 'Hello there.', temperature: 0.1, top_p: 0.2, repetition_penalty: 1.5, max_new_tokens: 200 });
    const b = await pcm({ text: 'Hello there.', temperature: 0.9, top_p: 0.9, early_stop_threshold: 0.5, features: ['quality-guard'] });
    expect(Buffer.from(a.samples.buffer).equals(Buffer.from(b.samples.buffer))).toBe(true);
  });
});

describe('POST /v1/tts billing', () => {
  it('charges a successful request once, by characters, and a failed one not at all', async () => {
    const before = server.accounts.charges.length;
    await synthesize({ text: 'Hello there.', format: 'wav' });
    const bad = await postJson(`${server.url}/v1/tts`, { text: 'Hello', sample_rate: 1234 });
    expect(bad.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const added = server.accounts.charges.slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]!.usage).toEqual({ kind: 'tts', characters: 'Hello there.'.length });
  });
});
