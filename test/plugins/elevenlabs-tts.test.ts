import { context } from '@opentelemetry/api';
import { from, lastValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureContextManager } from '../../src/agent/tracing.js';
import { decodeMuLaw, encodeMuLaw } from '../../src/audio/index.js';
import { elevenlabs, type ElevenLabsTextToSpeech } from '../../plugins/elevenlabs/index.js';
import { ElevenLabsDouble } from '../support/elevenlabs-double.js';
import { sleep, spokenAudio } from '../support/synthesis-double-kit.js';
import { bargeIn, expectKeyRejected, joinedSamples, samplesOf, traceparent, tracedContext, withoutVariable } from '../support/synthesis-test-kit.js';

describe('ElevenLabs streaming synthesis', () => {
  let double: ElevenLabsDouble | undefined;
  let tts: ElevenLabsTextToSpeech | undefined;
  afterEach(async () => {
    tts?.close();
    await double?.close();
    double = tts = undefined;
  });

  it('speaks flushed pieces on one context at the line rate; character alignment becomes words timed from the reply start', async () => {
    double = await ElevenLabsDouble.start({ chunkMs: 50 });
    tts = elevenlabs({ apiKey: 'test-key', baseUrl: double.url, voice: 'voice-1' });
    const audio = await lastValueFrom(tts.speak({ text$: from(['Hello there.', 'Table for two?']), sampleRate: 16000 }).pipe(toArray()));
    const first = spokenAudio('Hello there.', 16000, 20);
    expect(samplesOf(audio)).toBe(first.samples.length + spokenAudio('Table for two?', 16000, 20).samples.length);
    expect(audio.every((piece) => piece.frame.sampleRate === 16000 && piece.provider === 'elevenlabs')).toBe(true);
    const words = audio.flatMap((piece) => piece.words ?? []);
    expect(words.map((word) => word.word)).toEqual(['Hello', 'there.', 'Table', 'for', 'two?']);
    expect(words[1]).toEqual({ word: 'there.', startMs: 120, endMs: 240 });
    const firstMs = (first.samples.length * 1000) / 16000;
    expect(words[2]).toEqual({ word: 'Table', startMs: firstMs, endMs: firstMs + 100 });
    const seen = double.seen[0]!;
    expect(seen.voice).toBe('voice-1');
    expect(Object.fromEntries(seen.query)).toMatchObject({ model_id: 'eleven_flash_v2_5', output_format: 'pcm_16000', sync_alignment: 'true' });
    expect(seen.headers['xi-api-key']).toBe('test-key');
    const contextId = seen.messages[0]!['context_id'];
    expect(seen.messages).toEqual([
      { text: ' ', context_id: contextId },
      { text: 'Hello there. ', context_id: contextId, flush: true },
      { text: 'Table for two? ', context_id: contextId, flush: true },
      { context_id: contextId, text: '', flush: true },
      { context_id: contextId, close_context: true },
    ]);
  });

  it('opens another socket past ElevenLabs\' 5 contexts per socket', async () => {
    double = await ElevenLabsDouble.start();
    tts = elevenlabs({ apiKey: 'test-key', baseUrl: double.url });
    const replies = await Promise.all(Array.from({ length: 6 }, (_, index) => lastValueFrom(tts!.speak({ text$: from([`Reply ${index}.`]), sampleRate: 16000 }).pipe(toArray()))));
    expect(replies.every((audio) => samplesOf(audio) > 0)).toBe(true);
    const contexts = double.seen.map((seen) => new Set(seen.messages.map((message) => message['context_id'])).size);
    expect(contexts).toEqual([5, 1]);
  });

  it('asks for ulaw_8000 on a phone line and hands on the decoded 8 kHz audio', async () => {
    double = await ElevenLabsDouble.start();
    tts = elevenlabs({ apiKey: 'test-key', baseUrl: double.url });
    const audio = await lastValueFrom(tts.speak({ text$: from(['Yes.']), sampleRate: 8000 }).pipe(toArray()));
    expect(double.seen[0]!.query.get('output_format')).toBe('ulaw_8000');
    expect(joinedSamples(audio)).toEqual(decodeMuLaw(encodeMuLaw(spokenAudio('Yes.', 8000, 20).samples)));
    expect(audio[0]!.frame.sampleRate).toBe(8000);
  });

  it('closes the context at ElevenLabs on barge-in and hands on no more audio', async () => {
    double = await ElevenLabsDouble.start({ chunkMs: 20, chunkIntervalMs: 15 });
    tts = elevenlabs({ apiKey: 'test-key', baseUrl: double.url });
    const { received, heldAt } = await bargeIn(tts, 16000);
    await sleep(60);
    const seen = double.seen[0]!;
    expect(seen.messages.at(-1)).toEqual({ context_id: seen.messages[0]!['context_id'], close_context: true });
    expect(seen.messages.some((message) => message['text'] === '' && message['flush'] === true)).toBe(false);
    expect(received.length).toBe(heldAt);
  });

  it('names ELEVENLABS_API_KEY when the socket is closed on a bad key, or the key is missing', async () => {
    double = await ElevenLabsDouble.start();
    tts = elevenlabs({ apiKey: 'wrong', baseUrl: double.url });
    await expectKeyRejected(tts.speak({ text$: from(['Hi.']) }), 'elevenlabs', 1008, 'ELEVENLABS_API_KEY');
    withoutVariable('ELEVENLABS_API_KEY', () => expect(() => elevenlabs({ baseUrl: double!.url })).toThrow(/ELEVENLABS_API_KEY/));
  });

  it('fails a reply with `dropped` when the socket drops mid-reply, and opens a new socket for the next', async () => {
    double = await ElevenLabsDouble.start({ dropAfterChunks: 2, chunkMs: 20 });
    tts = elevenlabs({ apiKey: 'test-key', baseUrl: double.url });
    const error = await lastValueFrom(tts.speak({ text$: from(['A reply that will not finish.']) })).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ provider: 'elevenlabs', kind: 'dropped' });
    const next = await lastValueFrom(tts.speak({ text$: from(['Ok.']) }).pipe(toArray()));
    expect(samplesOf(next)).toBeGreaterThan(0);
    expect(double.seen).toHaveLength(2);
  });

  it('carries the reply\'s traceparent on the socket\'s upgrade request', async () => {
    ensureContextManager();
    double = await ElevenLabsDouble.start();
    tts = elevenlabs({ apiKey: 'test-key', baseUrl: double.url });
    await context.with(tracedContext(), () => lastValueFrom(tts!.speak({ text$: from(['Traced.']) })));
    expect(double.seen[0]!.headers.traceparent).toBe(traceparent);
  });
});
