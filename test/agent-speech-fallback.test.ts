import { lastValueFrom, of, throwError, toArray, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ChunkedTextToSpeech, FallbackTextToSpeech, type SpeechRequest, type TextToSpeech } from '../src/agent/index.js';

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

  it('reports the error when both fail', async () => {
    const tts = new FallbackTextToSpeech(failing(new Error('live down')), failing(new Error('http down')));
    await expect(lastValueFrom(tts.speak({ text$: of('Hi.') }))).rejects.toThrow('http down');
  });
});
