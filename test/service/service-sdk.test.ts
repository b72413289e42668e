import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FishAudioClient, RealtimeEvents } from 'fish-audio';
import { decodeAudio } from '../../src/audio/index.js';
import { apiKey, startService, wordErrorRate, type RunningService } from '../support/service-harness.js';

let server: RunningService;
let client: FishAudioClient;

beforeAll(async () => {
  server = await startService();
  client = new FishAudioClient({ apiKey, baseUrl: server.url });
});
afterAll(async () => {
  await server.close();
});

async function drain(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe('the official fish-audio SDK against the self-hosted service', () => {
  it('convert: synthesises MP3 over MessagePack with the model header', async () => {
    const stream = await client.textToSpeech.convert({ text: 'Hello from the official SDK.', format: 'mp3' }, 's1');
    const bytes = await drain(stream as unknown as ReadableStream<Uint8Array>);
    const decoded = await decodeAudio(bytes);
    expect(decoded.sampleRate).toBe(44100);
    expect(decoded.samples.length / decoded.sampleRate).toBeGreaterThan(1);
  });

  it('convert: takes opus_bitrate in kbps, a reference_id and prosody', async () => {
    const stream = await client.textToSpeech.convert(
      { text: 'Opus from the SDK.', format: 'opus', opus_bitrate: 32, reference_id: 'rms', prosody: { speed: 1.2, volume: -3 } },
      's2-pro' as 's1',
    );
    const decoded = await decodeAudio(await drain(stream as unknown as ReadableStream<Uint8Array>));
    expect(decoded.sampleRate).toBe(48000);
  });

  it('convert: sends inline references (File objects) that the server matches to a voice', async () => {
    const wav = readFileSync(join(import.meta.dirname, '../fixtures/speech/slt_00.wav'));
    const stream = await client.textToSpeech.convert(
      { text: 'A voice near the reference.', format: 'wav', references: [{ audio: new File([wav], 'ref.wav'), text: 'hello i would like to book a table for two people tonight' }] },
      's1',
    );
    const decoded = await decodeAudio(await drain(stream as unknown as ReadableStream<Uint8Array>));
    expect(decoded.samples.length / decoded.sampleRate).toBeGreaterThan(1);
  });

  it('convert: surfaces a 400 for a bad reference_id as an SDK error with our message', async () => {
    await expect(client.textToSpeech.convert({ text: 'hi', reference_id: 'nope' }, 's1')).rejects.toMatchObject({
      statusCode: 400,
      body: { status: 400, message: expect.stringMatching(/reference_id 'nope'/) },
    });
  });

  it('convertRealtime: streams audio chunks and closes after stop', async () => {
    async function* text() {
      yield 'Hello from the realtime SDK. ';
      yield 'It sends text in pieces, ';
      yield 'and then stops.';
    }
    const connection = await client.textToSpeech.convertRealtime({ text: '', format: 'wav', sample_rate: 16000 }, text(), 's1');
    const chunks: Uint8Array[] = [];
    const errors: unknown[] = [];
    await new Promise<void>((resolve) => {
      connection.on(RealtimeEvents.AUDIO_CHUNK, (...args: unknown[]) => chunks.push(args[0] as Uint8Array));
      connection.on(RealtimeEvents.ERROR, (error: unknown) => errors.push(error));
      connection.on(RealtimeEvents.CLOSE, () => resolve());
    });
    expect(errors).toEqual([]);
    expect(chunks.length).toBeGreaterThan(0);
    const decoded = await decodeAudio(Buffer.concat(chunks));
    expect(decoded.samples.length / decoded.sampleRate).toBeGreaterThan(3);
  });

  it('convertRealtime: reports a bad key as an error of the upgrade', async () => {
    const stranger = new FishAudioClient({ apiKey: 'sk_wrong', baseUrl: server.url });
    async function* text() {
      yield 'never spoken';
    }
    const connection = await stranger.textToSpeech.convertRealtime({ text: '' }, text());
    const error = await new Promise<Error>((resolve) => connection.on(RealtimeEvents.ERROR, (...args: unknown[]) => resolve(args[0] as Error)));
    expect(String(error.message)).toMatch(/401/);
  });

  it('speechToText.convert: transcribes a WAV file with segments (the SDK sends ignore_timestamps false)', async () => {
    const audio = new File([readFileSync(join(import.meta.dirname, '../fixtures/speech/rms_02.wav'))], 'rms_02.wav');
    const result = await client.speechToText.convert({ audio, language: 'en', ignore_timestamps: false });
    expect(wordErrorRate('can you tell me the weather in paris', result.text)).toBeLessThan(0.3);
    expect(result.duration).toBeCloseTo(2.52, 1);
    expect(result.segments.length).toBeGreaterThan(0);
  });
});
