import { lastValueFrom, of, throwError, toArray, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ChunkedTextToSpeech, FallbackTextToSpeech, type SpeechRequest, type TextToSpeech } from '../../src/agent/index.js';

const failing = (error: Error): TextToSpeech & { prepared: number } => ({
  prepared: 0,
  prepare() {
    this.prepared++;
  },
  speak: (request: SpeechRequest) => {
    // Reads the text like a real synthesiser would, then fails before any audio.
    request.text$.subscribe();
    return throwError(() => error) as Observable<never>;
  },
});

const toneFor = (text: string) => ({ samples: new Int16Array(text.length * 160).fill(100), sampleRate: 16000, words: [] });

describe('speech fallback', () => {
  it('speaks the whole reply with the fallback when the live socket fails before any audio', async () => {
    const reasons: unknown[] = [];
    const primary = failing(new Error('upgrade refused'));
    const http = new ChunkedTextToSpeech(async (text) => toneFor(text));
    const tts = new FallbackTextToSpeech(primary, http, (error) => reasons.push(error));
    tts.prepare();
    expect(primary.prepared).toBe(1);
    const audio = await lastValueFrom(tts.speak({ text$: of('Hello there.', 'Your table is booked.') }).pipe(toArray()));
    const samples = audio.reduce((n, a) => n + a.frame.samples.length, 0);
    expect(samples).toBe(('Hello there.'.length + 'Your table is booked.'.length) * 160);
    expect(reasons).toHaveLength(1);
    expect((reasons[0] as Error).message).toBe('upgrade refused');
  });

  it('asks the fallback for the call\'s playout rate, and prepares the primary at it', async () => {
    const primary = failing(new Error('upgrade refused'));
    const prepared: unknown[] = [];
    const rates: Array<number | undefined> = [];
    const http = new ChunkedTextToSpeech(async (text, _signal, _traceparent, sampleRate) => {
      rates.push(sampleRate);
      return { samples: new Int16Array(text.length * 80), sampleRate: sampleRate ?? 16000, words: [] };
    });
    const tts = new FallbackTextToSpeech({ ...primary, prepare: (request) => prepared.push(request) }, http);
    tts.prepare({ sampleRate: 8000 });
    expect(prepared).toEqual([{ sampleRate: 8000 }]);
    const audio = await lastValueFrom(tts.speak({ text$: of('Hello there.', 'Bye.'), sampleRate: 8000 }).pipe(toArray()));
    expect(rates).toEqual([8000, 8000]);
    expect(audio.every((a) => a.frame.sampleRate === 8000)).toBe(true);
  });

  it('reports the error when both fail', async () => {
    const tts = new FallbackTextToSpeech(failing(new Error('live down')), failing(new Error('http down')));
    await expect(lastValueFrom(tts.speak({ text$: of('Hi.') }))).rejects.toThrow('http down');
  });
});
