import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { firstValueFrom, from, lastValueFrom, NEVER, concat, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError, type CallSpeechToText, type TranscriptEvent } from '../../src/agent/index.js';
import { ensureContextManager } from '../../src/agent/tracing.js';
import { deepgram } from '../../plugins/deepgram/index.js';
import { DeepgramDouble } from '../support/deepgram-double.js';
import { toneUtterance } from '../support/provider-audio.js';

const eightKhzCall = { callerSampleRate: () => 8000 };

describe('deepgram() live recognition', () => {
  let double: DeepgramDouble | undefined;
  let call: CallSpeechToText | undefined;
  afterEach(async () => {
    call?.release();
    call = undefined;
    await double?.close();
    double = undefined;
  });

  it('sends a phone caller\'s 8 kHz audio as mu-law at 8000 with the expectations as key terms, and finalises at the endpoint', async () => {
    double = await DeepgramDouble.start({ script: ['Book a table for two.'] });
    const stt = deepgram({ apiKey: 'test-key', baseUrl: double.url, endpointingMs: false });
    expect(stt.takesSampleRate(8000)).toBe(true);
    call = stt.forCall(eightKhzCall);
    call.expect?.([{ kind: 'choice', options: ['table', 'terrace'] }, { kind: 'yes-no' }]);
    const frames = toneUtterance(8000, 600, 100);
    const events = await lastValueFrom(call.transcribe(from(frames)).pipe(toArray()));
    const final = events.at(-1)!;
    expect(final).toMatchObject({ final: true, text: 'Book a table for two.', provider: 'deepgram', confidence: 0.98 });
    expect(final.words.map((word) => word.word)).toEqual(['Book', 'a', 'table', 'for', 'two.']);
    expect(final.words[0]!.startMs).toBeLessThan(20);
    expect(final.words.at(-1)!.endMs).toBeGreaterThan(550);
    expect(events.filter((event) => !event.final).length).toBeGreaterThan(0);
    const seen = double.seen[0]!;
    expect(seen.headers.authorization).toBe('Token test-key');
    expect(Object.fromEntries(['encoding', 'sample_rate', 'interim_results', 'vad_events', 'smart_format', 'model'].map((key) => [key, seen.query.get(key)]))).toEqual({
      encoding: 'mulaw', sample_rate: '8000', interim_results: 'true', vad_events: 'true', smart_format: 'true', model: 'nova-3',
    });
    expect(seen.query.getAll('keyterm')).toEqual(['table', 'terrace']);
    expect(seen.audioBytes).toBe(frames.length * 160);
    expect(seen.controls).toEqual(['Finalize']);
  });

  it('sends audio in messages of at least chunkMs (80 ms by default), what is left just before Finalize; 0 sends each frame', async () => {
    double = await DeepgramDouble.start({ script: ['Chunked.', 'Each frame.'] });
    const frames = toneUtterance(8000, 600, 100); // 35 frames of 20 ms: 160 bytes of mu-law each
    call = deepgram({ apiKey: 'test-key', baseUrl: double.url, endpointingMs: false }).forCall(eightKhzCall);
    const events = await lastValueFrom(call.transcribe(from(frames)).pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ final: true, text: 'Chunked.' });
    expect(events.filter((event) => !event.final).length).toBeGreaterThan(0);
    const chunked = double.seen[0]!;
    expect(chunked.audioMessages).toEqual([...Array<number>(8).fill(4 * 160), 3 * 160]);
    expect(chunked.controls).toEqual(['Finalize']);
    expect(chunked.controlsAfter).toEqual([9]);
    call.release();

    call = deepgram({ apiKey: 'test-key', baseUrl: double.url, endpointingMs: false, chunkMs: 0 }).forCall(eightKhzCall);
    expect(await lastValueFrom(call.transcribe(from(frames)))).toMatchObject({ final: true, text: 'Each frame.' });
    expect(double.seen[1]!.audioMessages).toEqual(Array<number>(35).fill(160));
    expect(() => deepgram({ apiKey: 'test-key', chunkMs: 500 })).toThrow(/chunkMs must be 0 .* to 250 ms .*got 500/);
    expect(() => deepgram({ apiKey: 'test-key', chunkMs: Number.NaN })).toThrow(RangeError);
  });

  it('keeps one socket for the call\'s utterances, word times from each utterance\'s start, and closes it with CloseStream', async () => {
    double = await DeepgramDouble.start({ script: ['Hello there.', 'Friday at seven.'] });
    call = deepgram({ apiKey: 'test-key', baseUrl: double.url }).forCall(eightKhzCall);
    const first = await lastValueFrom(call.transcribe(from(toneUtterance(8000, 400, 400))));
    const second = await lastValueFrom(call.transcribe(from(toneUtterance(8000, 600, 400))));
    expect(first.text).toBe('Hello there.');
    expect(second).toMatchObject({ text: 'Friday at seven.', final: true, endOfSpeech: true });
    expect(second.words[0]!.startMs).toBeLessThan(20);
    expect(double.seen).toHaveLength(1);
    call.release();
    call = undefined;
    await until(() => double!.seen[0]!.controls.includes('CloseStream'));
    expect(double.seen[0]!.query.get('endpointing')).toBe('300');
  });

  it('opens a new socket between turns when the key terms change', async () => {
    double = await DeepgramDouble.start({ script: ['Yes.', 'Terrace.'] });
    call = deepgram({ apiKey: 'test-key', baseUrl: double.url }).forCall(eightKhzCall);
    await lastValueFrom(call.transcribe(from(toneUtterance(8000, 300, 200))));
    call.expect?.([{ kind: 'choice', options: ['terrace'] }]);
    await until(() => double!.seen.length === 2);
    expect(double.seen[1]!.query.getAll('keyterm')).toEqual(['terrace']);
    const second = await lastValueFrom(call.transcribe(from(toneUtterance(8000, 300, 200))));
    expect(second.text).toBe('Terrace.');
    expect(double.seen).toHaveLength(2);
    await until(() => double!.seen[0]!.controls.includes('CloseStream'));
  });

  it('sends KeepAlive while the caller is silent', async () => {
    double = await DeepgramDouble.start({ script: ['Hi.'] });
    call = deepgram({ apiKey: 'test-key', baseUrl: double.url, keepAliveMs: 60 }).forCall(eightKhzCall);
    await lastValueFrom(call.transcribe(from(toneUtterance(8000, 200, 100))));
    await until(() => double!.seen[0]!.controls.filter((control) => control === 'KeepAlive').length >= 2);
  });

  it('names DEEPGRAM_API_KEY when the key is missing or rejected', async () => {
    const saved = process.env['DEEPGRAM_API_KEY'];
    delete process.env['DEEPGRAM_API_KEY'];
    try {
      expect(() => deepgram()).toThrow(ProviderError);
      expect(() => deepgram()).toThrow(/DEEPGRAM_API_KEY/);
    } finally {
      if (saved !== undefined) process.env['DEEPGRAM_API_KEY'] = saved;
    }
    double = await DeepgramDouble.start();
    call = deepgram({ apiKey: 'wrong', baseUrl: double.url }).forCall(eightKhzCall);
    const error = await lastValueFrom(call.transcribe(from(toneUtterance(8000, 200, 100)))).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('auth');
    expect((error as ProviderError).line).toMatch(/^deepgram: the API key was rejected \(HTTP 401: Invalid credentials\.\) \(check DEEPGRAM_API_KEY\)$/);
  });

  it('fails the utterance with `dropped` when the socket dies mid-call, and opens a new one for the next', async () => {
    double = await DeepgramDouble.start({ script: ['One.', 'Two.'] });
    call = deepgram({ apiKey: 'test-key', baseUrl: double.url }).forCall(eightKhzCall);
    const events: TranscriptEvent[] = [];
    const failed = new Promise<unknown>((resolve) => call!.transcribe(concat(from(toneUtterance(8000, 400, 0)), NEVER)).subscribe({ next: (event) => events.push(event), error: resolve }));
    await until(() => events.length > 0);
    double.kill();
    expect(await failed).toMatchObject({ name: 'ProviderError', kind: 'dropped', provider: 'deepgram' });
    const next = await firstValueFrom(call.transcribe(from(toneUtterance(8000, 300, 200))));
    expect(next.text).toBe('Two.');
    expect(double.seen).toHaveLength(2);
  });

  it('carries the call\'s traceparent on the socket\'s upgrade request', async () => {
    ensureContextManager();
    double = await DeepgramDouble.start({ script: ['Traced.'] });
    call = deepgram({ apiKey: 'test-key', baseUrl: double.url }).forCall(eightKhzCall);
    const traced = trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
    const final = await context.with(traced, () => lastValueFrom(call!.transcribe(from(toneUtterance(8000, 200, 100)))));
    expect(final.text).toBe('Traced.');
    expect(double.seen[0]!.headers.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
  });

  it('sends 16 kHz audio as linear16 at 16000', async () => {
    double = await DeepgramDouble.start({ script: ['Wideband.'] });
    call = deepgram({ apiKey: 'test-key', baseUrl: double.url }).forCall({ callerSampleRate: () => 16000 });
    const final = await lastValueFrom(call.transcribe(from(toneUtterance(16000, 300, 100))));
    expect(final.text).toBe('Wideband.');
    expect(double.seen[0]!.query.get('encoding')).toBe('linear16');
    expect(double.seen[0]!.query.get('sample_rate')).toBe('16000');
  });
});

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
