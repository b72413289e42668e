import { context } from '@opentelemetry/api';
import { createServer } from 'node:net';
import { from, lastValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../src/agent/index.js';
import { ensureContextManager } from '../src/agent/tracing.js';
import { openaiSpeech, openaiTranscription } from '../plugins/openai-audio/index.js';
import { OpenAiAudioDouble } from './openai-audio-double.js';
import { toneUtterance } from './provider-audio.js';
import { sleep, spokenAudio } from './synthesis-double-kit.js';
import { bargeIn, expectKeyRejected, joinedSamples, samplesOf, traceparent, tracedContext, withoutVariable } from './synthesis-test-kit.js';


/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('OpenAI-compatible recognition on VAD segments', () => {
  let double: OpenAiAudioDouble | undefined;
  afterEach(async () => {
    await double?.close();
    double = undefined;
  });

  it('sends the utterance as one WAV at the endpoint, with the expected words as the prompt, and maps word timings', async () => {
    double = await OpenAiAudioDouble.start({ script: ['A booth please.'] });
    const call = openaiTranscription({ apiKey: 'test-key', baseUrl: double.url }).forCall({ callerSampleRate: () => 16000 });
    call.expect!([{ kind: 'choice', options: ['table', 'booth'] }]);
    const events = await lastValueFrom(call.transcribe(from(toneUtterance(16000, 600, 200))).pipe(toArray()));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ text: 'A booth please.', final: true });
    expect(events[0]!.words.map((word) => word.word)).toEqual(['A', 'booth', 'please']);
    expect(events[0]!.words.at(-1)!.endMs).toBe(800);
    expect(double.seen).toHaveLength(1);
    expect(double.seen[0]!.fields).toMatchObject({ model: 'whisper-1', language: 'en', prompt: 'table, booth', response_format: 'verbose_json', 'timestamp_granularities[]': ['word'] });
    expect(double.seen[0]!.sampleRate).toBe(16000);
    expect(call.capabilities).toMatchObject({ streaming: false, wordTimings: true, keywordBoosting: true });
  });

  it('sends a phone caller\'s 8 kHz as it is, and plain json without word timings when asked', async () => {
    double = await OpenAiAudioDouble.start({ script: ['Yes.'] });
    const stt = openaiTranscription({ apiKey: 'test-key', baseUrl: double.url, model: 'gpt-4o-transcribe', responseFormat: 'json' });
    expect(stt.takesSampleRate(8000)).toBe(true);
    const call = stt.forCall({ callerSampleRate: () => 8000 });
    const final = await lastValueFrom(call.transcribe(from(toneUtterance(8000, 400, 100))));
    expect(final).toMatchObject({ text: 'Yes.', words: [], final: true });
    expect(double.seen[0]!.sampleRate).toBe(8000);
    expect(double.seen[0]!.fields['timestamp_granularities[]']).toBeUndefined();
    expect(stt.capabilities.wordTimings).toBe(false);
  });

  it('gives typed errors: a rejected key naming OPENAI_API_KEY, a failing server, an unreachable one', async () => {
    double = await OpenAiAudioDouble.start();
    const rejected = await lastValueFrom(openaiTranscription({ apiKey: 'wrong', baseUrl: double.url }).transcribe(from(toneUtterance(16000, 300, 0)))).catch((caught: unknown) => caught);
    expect(rejected).toBeInstanceOf(ProviderError);
    expect(rejected).toMatchObject({ provider: 'openai', kind: 'auth', details: { status: 401, keyVariable: 'OPENAI_API_KEY' } });
    expect((rejected as ProviderError).line).toMatch(/Incorrect API key.*OPENAI_API_KEY/);
    double.options.failWith = 503;
    const failing = await lastValueFrom(openaiTranscription({ apiKey: 'test-key', baseUrl: double.url }).transcribe(from(toneUtterance(16000, 300, 0)))).catch((caught: unknown) => caught);
    expect(failing).toMatchObject({ kind: 'server', details: { status: 503 } });
    const away = await lastValueFrom(openaiTranscription({ apiKey: 'test-key', baseUrl: `http://127.0.0.1:${await closedPort()}/v1` }).transcribe(from(toneUtterance(16000, 300, 0)))).catch((caught: unknown) => caught);
    expect(away).toMatchObject({ kind: 'unreachable' });
  });

  it('needs OPENAI_API_KEY for OpenAI itself, not for a local server', async () => {
    withoutVariable('OPENAI_API_KEY', () => {
      expect(() => openaiTranscription()).toThrow(/OPENAI_API_KEY/);
      expect(() => openaiSpeech({ baseUrl: 'https://api.openai.com/v1' })).toThrow(/OPENAI_API_KEY/);
      expect(openaiSpeech({ baseUrl: 'http://127.0.0.1:8880/v1' }).provider).toBe('openai');
    });
  });

  it('carries the utterance\'s traceparent on the request', async () => {
    ensureContextManager();
    double = await OpenAiAudioDouble.start({ script: ['Traced.'] });
    const stt = openaiTranscription({ apiKey: 'test-key', baseUrl: double.url });
    await context.with(tracedContext(), () => lastValueFrom(stt.transcribe(from(toneUtterance(16000, 300, 0)))));
    expect(double.seen[0]!.headers.traceparent).toBe(traceparent);
  });
});

describe('OpenAI-compatible synthesis, sentence by sentence', () => {
  let double: OpenAiAudioDouble | undefined;
  afterEach(async () => {
    await double?.close();
    double = undefined;
  });

  it('speaks each piece as one pcm request, converted from 24 kHz to the line\'s rate, in order', async () => {
    double = await OpenAiAudioDouble.start({ chunkMs: 30 });
    const tts = openaiSpeech({ apiKey: 'test-key', baseUrl: double.url, voice: 'coral' });
    const audio = await lastValueFrom(tts.speak({ text$: from(['Hello there.', 'Table for two?']), sampleRate: 16000 }).pipe(toArray()));
    const at24k = spokenAudio('Hello there.', 24000, 20).samples.length + spokenAudio('Table for two?', 24000, 20).samples.length;
    expect(samplesOf(audio)).toBe(Math.round((at24k * 16000) / 24000));
    expect(audio.every((piece) => piece.frame.sampleRate === 16000 && piece.frame.samples.length <= 320 && piece.provider === 'openai')).toBe(true);
    expect(double.seen.map((request) => request.fields)).toEqual([
      { model: 'gpt-4o-mini-tts', voice: 'coral', input: 'Hello there.', response_format: 'pcm' },
      { model: 'gpt-4o-mini-tts', voice: 'coral', input: 'Table for two?', response_format: 'pcm' },
    ]);
  });

  it('hands on the server\'s 24 kHz unchanged at 24 kHz, raw or from speech.audio.delta events', async () => {
    double = await OpenAiAudioDouble.start({ chunkMs: 30 });
    const expected = spokenAudio('Just so.', 24000, 20).samples;
    for (const streamFormat of ['audio', 'sse'] as const) {
      const audio = await lastValueFrom(openaiSpeech({ apiKey: 'test-key', baseUrl: double.url, streamFormat }).speak({ text$: from(['Just so.']), sampleRate: 24000 }).pipe(toArray()));
      expect(joinedSamples(audio)).toEqual(expected);
    }
    expect(double.seen[1]!.fields['stream_format']).toBe('sse');
  });

  it('aborts the request on barge-in and hands on no more audio', async () => {
    double = await OpenAiAudioDouble.start({ chunkMs: 20, chunkIntervalMs: 15 });
    const tts = openaiSpeech({ apiKey: 'test-key', baseUrl: double.url });
    const { received, heldAt } = await bargeIn(tts, 24000);
    for (let waited = 0; !double.seen[0]!.aborted && waited < 1000; waited += 10) await sleep(10);
    expect(double.seen[0]!.aborted).toBe(true);
    await sleep(50);
    expect(received.length).toBe(heldAt);
  });

  it('gives typed errors: a rejected key naming OPENAI_API_KEY, a body cut mid-reply as dropped', async () => {
    double = await OpenAiAudioDouble.start({ dropAfterChunks: 2, chunkMs: 20 });
    await expectKeyRejected(openaiSpeech({ apiKey: 'wrong', baseUrl: double.url }).speak({ text$: from(['Hi.']) }), 'openai', 401, 'OPENAI_API_KEY');
    const cut = await lastValueFrom(openaiSpeech({ apiKey: 'test-key', baseUrl: double.url }).speak({ text$: from(['A reply that will not finish.']) })).catch((caught: unknown) => caught);
    expect(cut).toBeInstanceOf(ProviderError);
    expect(cut).toMatchObject({ provider: 'openai', kind: 'dropped' });
  });

  it('carries the reply\'s traceparent on each request', async () => {
    ensureContextManager();
    double = await OpenAiAudioDouble.start();
    const tts = openaiSpeech({ apiKey: 'test-key', baseUrl: double.url });
    await context.with(tracedContext(), () => lastValueFrom(tts.speak({ text$: from(['One.', 'Two.']) })));
    expect(double.seen.map((request) => request.headers.traceparent)).toEqual([traceparent, traceparent]);
  });
});
