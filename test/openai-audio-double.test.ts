import OpenAI, { toFile } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeWav } from '../src/audio/index.js';
import { OpenAiAudioDouble } from './openai-audio-double.js';
import { spokenAudio } from './synthesis-double-kit.js';

const bodyBytes = async (response: Response) => Buffer.from(await response.arrayBuffer());

/** The double speaks OpenAI's audio API as the official SDK (`openai`) expects it. */
describe('OpenAI audio double, checked with the openai SDK', () => {
  let double: OpenAiAudioDouble | undefined;
  afterEach(async () => {
    await double?.close();
    double = undefined;
  });

  it('transcribes a multipart upload, with word timestamps in verbose_json', async () => {
    double = await OpenAiAudioDouble.start({ script: ['Book a table.'] });
    const client = new OpenAI({ apiKey: 'test-key', baseURL: double.url, maxRetries: 0 });
    const file = await toFile(encodeWav(new Int16Array(16000), 16000), 'one-second.wav', { type: 'audio/wav' });
    const result = await client.audio.transcriptions.create({ file, model: 'whisper-1', language: 'en', prompt: 'table', response_format: 'verbose_json', timestamp_granularities: ['word'] });
    expect(result.text).toBe('Book a table.');
    expect(result.words?.map((word) => word.word)).toEqual(['Book', 'a', 'table']);
    expect(result.words?.at(-1)?.end).toBeCloseTo(1, 5);
    expect(double.seen[0]!.fields).toMatchObject({ model: 'whisper-1', language: 'en', prompt: 'table', response_format: 'verbose_json', 'timestamp_granularities[]': ['word'] });
  });

  it('streams 24 kHz PCM speech, raw or as speech.audio.delta events', async () => {
    double = await OpenAiAudioDouble.start({ chunkMs: 40 });
    const client = new OpenAI({ apiKey: 'test-key', baseURL: double.url, maxRetries: 0 });
    const raw = await bodyBytes(await client.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'Hello there.', response_format: 'pcm' }));
    expect(raw.length).toBe(spokenAudio('Hello there.', 24000, 20).samples.length * 2);
    const sse = (await bodyBytes(await client.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'Hello there.', response_format: 'pcm', stream_format: 'sse' }))).toString();
    const events = sse.split('\n\n').filter(Boolean).map((block) => JSON.parse(block.replace(/^data: /, '')) as { type: string; audio?: string });
    expect(events.at(-1)!.type).toBe('speech.audio.done');
    expect(Buffer.concat(events.filter((event) => event.audio).map((event) => Buffer.from(event.audio!, 'base64')))).toEqual(raw);
  });

  it('rejects a bad key with 401 and OpenAI\'s error body, as the SDK reports it', async () => {
    double = await OpenAiAudioDouble.start();
    const client = new OpenAI({ apiKey: 'wrong', baseURL: double.url, maxRetries: 0 });
    const error = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi.', response_format: 'pcm' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});
