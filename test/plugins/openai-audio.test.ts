/** The OpenAI-compatible audio adapter (plugins/openai-audio) on a protocol double checked with the official `openai` SDK. */
import OpenAI, { toFile } from 'openai';
import { firstValueFrom, from, lastValueFrom, Observable, Subject, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError, type SpokenAudio, type UtteranceFrame } from '../../src/agent/index.js';
import { createFrame, encodeWav } from '../../src/audio/index.js';
import { openaiStt, openaiTts, takeSentences } from '../../plugins/index.js';
import { startOpenAiAudioDouble, type OpenAiAudioDouble } from '../support/openai-audio-double.js';

let double: OpenAiAudioDouble;
beforeAll(async () => {
  double = await startOpenAiAudioDouble({ apiKey: 'sk-test', transcript: 'table for two at seven', firstAudioMs: 20 });
});
afterAll(async () => double?.close());

const tone = (ms: number, rate = 16_000) => {
  const samples = new Int16Array((ms * rate) / 1000);
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(Math.sin(i / 5) * 4000);
  return samples;
};
const utterance = (ms: number, rate = 16_000): Observable<UtteranceFrame> =>
  from(Array.from({ length: ms / 20 }, (_, i) => createFrame(tone(20, rate), rate, i * 20)));
const durationMs = (audio: SpokenAudio[]) => audio.reduce((sum, { frame }) => sum + (frame.samples.length * 1000) / frame.sampleRate, 0);

describe('the OpenAI audio double', () => {
  it('speaks the protocol the official openai SDK speaks', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: double.url });
    const file = await toFile(Buffer.from(encodeWav(tone(500), 16_000)), 'a.wav', { type: 'audio/wav' });
    const verbose = await client.audio.transcriptions.create({ file, model: 'whisper-1', response_format: 'verbose_json', timestamp_granularities: ['word'] });
    expect(verbose.text).toBe('table for two at seven');
    expect(verbose.words?.[1]).toEqual({ word: 'for', start: 0.4, end: 0.7 });
    expect(double.transcriptions.at(-1)).toMatchObject({ model: 'whisper-1', responseFormat: 'verbose_json', granularities: ['word'] });
    const speech = await client.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'Hello.', response_format: 'pcm' });
    expect((await speech.arrayBuffer()).byteLength).toBe(Math.round(6 * 60 * 24) * 2);
    const wrong = new OpenAI({ apiKey: 'sk-wrong', baseURL: double.url, maxRetries: 0 });
    await expect(wrong.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'x' })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});

describe('recognition on /audio/transcriptions', () => {
  it('sends each utterance once at the endpoint, with the expectations as the prompt, and gives words', async () => {
    const call = openaiStt({ apiKey: 'sk-test', baseUrl: double.url, sttModel: 'whisper-large-v3' }).forCall();
    call.expect?.([{ kind: 'choice', options: ['seven', 'eight'] }]);
    const before = double.transcriptions.length;
    const events = await lastValueFrom(call.transcribe(utterance(800)).pipe(toArray()));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ final: true, text: 'table for two at seven' });
    expect(events[0]!.words[4]).toEqual({ word: 'seven', startMs: 1600, endMs: 1900 });
    expect(double.transcriptions.length).toBe(before + 1);
    const seen = double.transcriptions.at(-1)!;
    expect(seen).toMatchObject({ model: 'whisper-large-v3', responseFormat: 'verbose_json', granularities: ['word'] });
    expect(seen.prompt).toMatch(/seven, eight/);
    // 800 ms at 16 kHz as a WAV: 44 bytes of header and 2 bytes a sample.
    expect(seen.fileBytes).toBe(44 + 800 * 16 * 2);
    expect(call.provider).toBe('openai');
  });

  it('names OPENAI_API_KEY when the key is missing or rejected', async () => {
    const saved = process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_API_KEY'];
    try {
      const missing = await firstValueFrom(openaiStt({ baseUrl: double.url }).transcribe(utterance(100))).catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(ProviderError);
      expect((missing as ProviderError).line).toMatch(/set OPENAI_API_KEY/);
    } finally {
      if (saved !== undefined) process.env['OPENAI_API_KEY'] = saved;
    }
    const rejected = await firstValueFrom(openaiStt({ apiKey: 'sk-wrong', baseUrl: double.url }).transcribe(utterance(100))).catch((error: unknown) => error);
    expect(rejected).toMatchObject({ kind: 'auth', details: { status: 401, keyVariable: 'OPENAI_API_KEY' } });
    expect((rejected as ProviderError).line).toMatch(/Incorrect API key provided/);
    const unreachable = await firstValueFrom(openaiStt({ apiKey: 'sk-test', baseUrl: 'http://127.0.0.1:1/v1' }).transcribe(utterance(100))).catch((error: unknown) => error);
    expect(unreachable).toMatchObject({ kind: 'unreachable' });
  });
});

describe('synthesis on /audio/speech', () => {
  it('sends the reply sentence by sentence and plays it at the line rate', async () => {
    const before = double.speech.length;
    const text$ = from(['Hello there. How', ' are you', '? Fine']);
    const audio = await lastValueFrom(openaiTts({ apiKey: 'sk-test', baseUrl: double.url, voice: 'nova' }).speak({ text$, sampleRate: 8000 }).pipe(toArray()));
    expect(double.speech.slice(before).map((seen) => seen.input)).toEqual(['Hello there.', 'How are you?', 'Fine']);
    expect(double.speech.slice(before).every((seen) => seen.voice === 'nova' && seen.responseFormat === 'pcm')).toBe(true);
    expect(audio.every(({ frame, provider }) => frame.sampleRate === 8000 && provider === 'openai')).toBe(true);
    const characters = 'Hello there.'.length + 'How are you?'.length + 'Fine'.length;
    expect(durationMs(audio)).toBeCloseTo(characters * 60, -1);
  });

  it('stops the request at the provider when the caller barges in', async () => {
    const before = double.speech.length;
    const text$ = new Subject<string>();
    const first = new Promise<void>((resolve) => {
      const subscription = openaiTts({ apiKey: 'sk-test', baseUrl: double.url }).speak({ text$, sampleRate: 16_000 }).subscribe(() => {
        subscription.unsubscribe();
        resolve();
      });
    });
    text$.next(`${'A long sentence that takes a while to say. '.repeat(20)}`);
    await first;
    // The whole sentence takes over 2 s to send; an aborted request ends at once.
    const deadline = Date.now() + 1000;
    while (!double.speech.at(-1)?.ended && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(double.speech.length).toBe(before + 1);
    expect(double.speech.at(-1)).toMatchObject({ ended: true, completed: false });
  });

  it('splits streamed text at sentence ends only', () => {
    expect(takeSentences('Hi. How are')).toEqual({ sentences: ['Hi.'], rest: 'How are' });
    expect(takeSentences('Is it 3.5 now? "Yes." Ok')).toEqual({ sentences: ['Is it 3.5 now?', '"Yes."'], rest: 'Ok' });
  });
});
