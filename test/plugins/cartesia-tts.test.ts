import { context } from '@opentelemetry/api';
import { from, lastValueFrom, Subject, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { FailoverTextToSpeech, ProviderError, type SpokenAudio } from '../../src/agent/index.js';
import { ensureContextManager } from '../../src/agent/tracing.js';
import { decodeMuLaw, encodeMuLaw } from '../../src/audio/index.js';
import { cartesia, type CartesiaTextToSpeech } from '../../plugins/cartesia/index.js';
import { CartesiaDouble } from '../support/cartesia-double.js';
import { sleep, spokenAudio } from '../support/synthesis-double-kit.js';
import { bargeIn, expectKeyRejected, joinedSamples, longSentence, samplesOf, traceparent, tracedContext, withoutVariable } from '../support/synthesis-test-kit.js';


describe('Cartesia streaming synthesis', () => {
  let double: CartesiaDouble | undefined;
  let tts: CartesiaTextToSpeech | undefined;
  afterEach(async () => {
    tts?.close();
    await double?.close();
    double = tts = undefined;
  });

  it('speaks text pieces as they stream on one context, at the line rate, with word timings from the reply start', async () => {
    double = await CartesiaDouble.start();
    tts = cartesia({ apiKey: 'test-key', baseUrl: double.url });
    const audio = await lastValueFrom(tts.speak({ text$: from(['Hello there.', 'Table for two?']), sampleRate: 16000 }).pipe(toArray()));
    const first = spokenAudio('Hello there.', 16000, 20);
    expect(samplesOf(audio)).toBe(first.samples.length + spokenAudio('Table for two?', 16000, 20).samples.length);
    expect(audio.every((piece) => piece.frame.sampleRate === 16000 && piece.provider === 'cartesia')).toBe(true);
    const words = audio.flatMap((piece) => piece.words ?? []);
    expect(words.map((word) => word.word)).toEqual(['Hello', 'there.', 'Table', 'for', 'two?']);
    const firstMs = (first.samples.length * 1000) / 16000;
    expect(words[2]).toEqual({ word: 'Table', startMs: firstMs, endMs: firstMs + 100 });
    const sent = double.seen[0]!.messages;
    expect(new Set(sent.map((message) => message['context_id'])).size).toBe(1);
    expect(sent.map((message) => [message['transcript'], message['continue']])).toEqual([['Hello there. ', true], ['Table for two? ', true], ['', false]]);
    expect(sent[0]).toMatchObject({ model_id: 'sonic-2', add_timestamps: true, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 } });
    expect(double.seen[0]!.headers['cartesia-version']).toBe('2025-04-16');
  });

  it('speaks a phone line\'s 8 kHz as mu-law on the wire, decoded once', async () => {
    double = await CartesiaDouble.start();
    tts = cartesia({ apiKey: 'test-key', baseUrl: double.url });
    const audio = await lastValueFrom(tts.speak({ text$: from(['Yes.']), sampleRate: 8000 }).pipe(toArray()));
    expect(double.seen[0]!.messages[0]).toMatchObject({ output_format: { encoding: 'pcm_mulaw', sample_rate: 8000 } });
    const expected = decodeMuLaw(encodeMuLaw(spokenAudio('Yes.', 8000, 20).samples));
    expect(joinedSamples(audio)).toEqual(expected);
    expect(audio[0]!.frame.sampleRate).toBe(8000);
  });

  it('speaks at its default rate when the line\'s rate is not one Cartesia offers', async () => {
    double = await CartesiaDouble.start();
    tts = cartesia({ apiKey: 'test-key', baseUrl: double.url });
    const audio = await lastValueFrom(tts.speak({ text$: from(['Fine.']), sampleRate: 11025 }).pipe(toArray()));
    expect(audio[0]!.frame.sampleRate).toBe(24000);
  });

  it('cancels the context at Cartesia on barge-in and hands on no more audio', async () => {
    double = await CartesiaDouble.start({ chunkMs: 20, chunkIntervalMs: 15 });
    tts = cartesia({ apiKey: 'test-key', baseUrl: double.url });
    const { received, heldAt } = await bargeIn(tts, 16000);
    await sleep(100);
    const seen = double.seen[0]!;
    const contextId = seen.messages[0]!['context_id'];
    expect(seen.messages.at(-1)).toEqual({ context_id: contextId, cancel: true });
    expect(received.length).toBe(heldAt);
    const chunks = seen.sent.filter((message) => message['type'] === 'chunk').length;
    await sleep(100);
    expect(seen.sent.filter((message) => message['type'] === 'chunk').length).toBe(chunks);
    expect(chunks).toBeLessThan(Math.ceil(spokenAudio(longSentence, 16000, 20).samples.length / 320));
  });

  it('gives each of many replies at once (calls sharing the adapter) exactly its own audio, some cancelled mid-way', async () => {
    double = await CartesiaDouble.start({ firstAudioMs: 30, chunkMs: 20, chunkIntervalMs: 3 });
    tts = cartesia({ apiKey: 'test-key', baseUrl: double.url });
    const replies = Array.from({ length: 10 }, (_, call) => ({ first: `Caller${call} hears`, second: `${'more '.repeat(call)}words${call}.`, cancel: call % 3 === 1 }));
    const outcomes = await Promise.all(
      replies.map(async (reply, call) => {
        await sleep(call * 7);
        tts!.prepare({ sampleRate: 8000 });
        const text$ = new Subject<string>();
        const audio: SpokenAudio[] = [];
        let ended: 'done' | 'cancelled' | 'failed' | undefined;
        const subscription = tts!.speak({ text$, sampleRate: 8000 }).subscribe({ next: (piece) => audio.push(piece), complete: () => (ended = 'done'), error: () => (ended = 'failed') });
        text$.next(reply.first);
        await sleep(10);
        text$.next(reply.second);
        text$.complete();
        while (!ended) {
          if (reply.cancel && samplesOf(audio) >= 320) {
            subscription.unsubscribe();
            ended = 'cancelled';
          }
          await sleep(2);
        }
        return { ended, audio };
      }),
    );
    expect(double.seen).toHaveLength(1);
    const contexts = new Set(double.seen[0]!.messages.map((message) => message['context_id']));
    expect(contexts.size).toBe(replies.length);
    for (const [call, reply] of replies.entries()) {
      const { ended, audio } = outcomes[call]!;
      const own = decodeMuLaw(encodeMuLaw(spokenAudio(`${reply.first} ${reply.second}`, 8000, 20).samples));
      const heard = joinedSamples(audio);
      if (reply.cancel) {
        expect(ended).toBe('cancelled');
        expect(heard.length).toBeLessThan(own.length);
        expect(heard).toEqual(own.subarray(0, heard.length));
      } else {
        expect(ended).toBe('done');
        expect(heard).toEqual(own);
        expect(audio.flatMap((piece) => piece.words ?? []).map((word) => word.word)).toEqual(`${reply.first} ${reply.second}`.split(/\s+/).filter(Boolean));
      }
    }
    const cancelled = double.seen[0]!.messages.filter((message) => message['cancel'] === true).map((message) => message['context_id']);
    expect(cancelled).toHaveLength(replies.filter((reply) => reply.cancel).length);
  });

  it('names CARTESIA_API_KEY when the key is rejected or missing', async () => {
    double = await CartesiaDouble.start();
    tts = cartesia({ apiKey: 'wrong', baseUrl: double.url });
    await expectKeyRejected(tts.speak({ text$: from(['Hi.']) }), 'cartesia', 401, 'CARTESIA_API_KEY');
    withoutVariable('CARTESIA_API_KEY', () => expect(() => cartesia({ baseUrl: double!.url })).toThrow(/CARTESIA_API_KEY/));
  });

  it('fails a reply with `dropped` when the socket drops mid-reply, the error failover hands over on', async () => {
    double = await CartesiaDouble.start({ dropAfterChunks: 2, chunkMs: 20 });
    tts = cartesia({ apiKey: 'test-key', baseUrl: double.url });
    const spare = await CartesiaDouble.start();
    const backup = cartesia({ apiKey: 'test-key', baseUrl: spare.url });
    try {
      const failures: unknown[] = [];
      const failover = new FailoverTextToSpeech([tts, backup], (_from, _to, error) => failures.push(error));
      const audio = await lastValueFrom(failover.speak({ text$: from(['A reply that will not finish here.']), sampleRate: 16000 }).pipe(toArray()));
      expect(failures).toHaveLength(1);
      expect(failures[0]).toBeInstanceOf(ProviderError);
      expect(failures[0]).toMatchObject({ provider: 'cartesia', kind: 'dropped' });
      expect(spare.seen[0]!.messages[0]!['transcript']).toBe('A reply that will not finish here. ');
      expect(samplesOf(audio)).toBeGreaterThan(0);
    } finally {
      backup.close();
      await spare.close();
    }
  });

  it('carries the reply\'s traceparent on the socket\'s upgrade request', async () => {
    ensureContextManager();
    double = await CartesiaDouble.start();
    tts = cartesia({ apiKey: 'test-key', baseUrl: double.url });
    await context.with(tracedContext(), () => lastValueFrom(tts!.speak({ text$: from(['Traced.']) })));
    expect(double.seen[0]!.headers.traceparent).toBe(traceparent);
  });
});
