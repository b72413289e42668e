/**
 * The official `openai` client, as it is, against a real `shoal serve` (SQLite): speech in every format and
 * streamed, the model list, and its error classes on a bad key and over the key's rate.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { decodeAudio, bytesToInt16, rmsDbfs } from '../../src/audio/index.js';
import { wordErrorRate } from '../support/service-harness.js';
import { openAiClient, sentence, sseEvents, serveForOpenAi } from '../support/compatible-openai-client.js';

const served = serveForOpenAi();
const { freshClient } = served;

describe('speech', () => {
  const decoded = async (bytes: Uint8Array, format: string) => {
    const audio = format === 'pcm' ? { samples: bytesToInt16(bytes), sampleRate: 24000 } : await decodeAudio(bytes);
    return { sampleRate: audio.sampleRate, seconds: audio.samples.length / audio.sampleRate, levelDb: rmsDbfs(audio.samples) };
  };

  it.each([
    ['mp3', 44100],
    ['opus', 48000],
    ['wav', 24000],
    ['pcm', 24000],
  ] as const)('answers %s audio of the text, at %i Hz', async (format, rate) => {
    const response = await served.client.audio.speech.create({ model: 'tts-1', input: sentence, voice: 'alloy', response_format: format });
    const audio = await decoded(new Uint8Array(await response.arrayBuffer()), format);
    expect(audio.sampleRate).toBe(rate);
    expect(audio.seconds).toBeGreaterThan(3);
    expect(audio.seconds).toBeLessThan(10);
    expect(audio.levelDb).toBeGreaterThan(-40);
  }, 60_000);

  it('is recognised back: speech in mp3, transcribed from the mp3', async () => {
    const response = await served.client.audio.speech.create({ model: 'gpt-4o-mini-tts', input: 'What time do you open on Saturday?', voice: 'shimmer', response_format: 'mp3' });
    const file = await OpenAI.toFile(Buffer.from(await response.arrayBuffer()), 'speech.mp3', { type: 'audio/mpeg' });
    const transcript = await served.client.audio.transcriptions.create({ file, model: 'whisper-1' });
    expect(wordErrorRate('what time do you open on saturday', transcript.text)).toBeLessThan(0.3);
  }, 60_000);

  it('maps OpenAI voice names to different built-in voices, and speed shortens the audio', async () => {
    const speak = async (voice: string, speed = 1) =>
      decoded(new Uint8Array(await (await served.client.audio.speech.create({ model: 'tts-1', input: sentence, voice, response_format: 'wav', speed })).arrayBuffer()), 'wav');
    const onyx = await speak('onyx');
    const nova = await speak('nova');
    const fast = await speak('onyx', 1.5);
    expect(Math.abs(onyx.seconds - nova.seconds)).toBeGreaterThan(0.1);
    expect(fast.seconds).toBeLessThan(onyx.seconds * 0.8);
    await expect(speak('nobody')).rejects.toMatchObject({ status: 400, message: expect.stringContaining('alloy') });
  }, 60_000);

  it('refuses aac and flac (no encoder here) and a speed out of range with a 400', async () => {
    for (const format of ['aac', 'flac'] as const) {
      const refused = served.client.audio.speech.create({ model: 'tts-1', input: 'Hello.', voice: 'alloy', response_format: format });
      await expect(refused).rejects.toMatchObject({ status: 400, message: expect.stringContaining(`no ${format} encoder`) });
    }
    await expect(served.client.audio.speech.create({ model: 'tts-1', input: 'Hello.', voice: 'alloy', speed: 4 })).rejects.toMatchObject({ status: 400, param: 'speed' });
  }, 60_000);

  it('streams the body as it is synthesised', async () => {
    const long = Array.from({ length: 6 }, () => sentence).join(' ');
    // A key of its own: the shared client may wait out a spent rate window, which would count as time to first byte.
    const client = await freshClient('streamer');
    const started = performance.now();
    const response = await client.audio.speech.create({ model: 'tts-1', input: long, voice: 'echo', response_format: 'pcm' });
    const reader = response.body!.getReader();
    let firstMs = -1;
    let bytes = 0;
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      if (firstMs < 0) firstMs = performance.now() - started;
      bytes += part.value.length;
    }
    const totalMs = performance.now() - started;
    expect(bytes / 2 / 24000).toBeGreaterThan(20);
    expect(firstMs).toBeLessThan(totalMs / 2);
  }, 60_000);

  it('answers speech.audio.delta events and a speech.audio.done with stream_format sse', async () => {
    const response = await served.client.audio.speech.create({ model: 'tts-1', input: sentence, voice: 'fable', response_format: 'mp3', stream_format: 'sse' });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await sseEvents(response);
    expect(events.at(-1)).toMatchObject({ type: 'speech.audio.done', usage: { input_tokens: sentence.length } });
    const deltas = events.slice(0, -1);
    expect(deltas.length).toBeGreaterThan(1);
    const mp3 = Buffer.concat(deltas.map((event) => Buffer.from(event.audio as string, 'base64')));
    const audio = await decoded(new Uint8Array(mp3), 'mp3');
    expect(audio.seconds).toBeGreaterThan(3);
  }, 60_000);
});

describe('the service around them', () => {
  it('lists the models the audio routes take, in OpenAI shape, beside the voice models of /model', async () => {
    // A key of its own: the tests before have used the main key's window of 10 requests per 2 s.
    const client = await freshClient('lister');
    const ids = [];
    for await (const model of client.models.list()) {
      expect(model.object).toBe('model');
      ids.push(model.id);
    }
    expect(ids).toEqual(expect.arrayContaining(['whisper-1', 'gpt-4o-transcribe', 'tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 's1']));
    expect((await client.models.retrieve('tts-1')).owned_by).toBe('shoal');
    await expect(client.models.retrieve('dall-e-3')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const voiceModels = await fetch(`${served.serve.url}/model`, { headers: { authorization: `Bearer ${client.apiKey}` } });
    expect(voiceModels.status).toBe(200);
    expect(await voiceModels.json()).toMatchObject({ total: 0, items: [] });
  });

  it('raises AuthenticationError on a bad key and RateLimitError over the key rate', async () => {
    const stranger = openAiClient(served.serve.url, 'sk_nobody');
    await expect(stranger.audio.speech.create({ model: 'tts-1', input: 'Hi.', voice: 'alloy' })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(stranger.models.list()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    const busy = await freshClient('busy');
    const results = await Promise.allSettled(Array.from({ length: 14 }, () => busy.models.list()));
    const refused = results.filter((result) => result.status === 'rejected').map((result) => (result as PromiseRejectedResult).reason);
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) {
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect(error).toMatchObject({ code: 'rate_limit_exceeded' });
    }
  });
});
