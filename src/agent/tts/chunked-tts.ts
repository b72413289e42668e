import { concatMap, from, Observable, type Observable as Obs } from 'rxjs';
import type { AudioFrame } from '../../audio/index.js';
import { splitFrame } from '../../audio/index.js';
import type { WordTiming } from '../../speech/index.js';
import type { SpeechRequest, SpokenWord, TextToSpeech } from '../contracts.js';
import { traceparentOf } from '../tracing.js';

/**
 * Synthesises one piece of text (a clause or sentence) to PCM with word times relative to its start; at
 * `sampleRate` (the call's playout rate) when given and the synthesiser can, else at its own rate.
 */
export type SynthesizeChunk = (
  text: string,
  signal: AbortSignal,
  traceparent: string | undefined,
  sampleRate?: number,
) => Promise<{ samples: Int16Array; sampleRate: number; words: WordTiming[]; /** Credits billed, when the service says. */ charge?: number }>;

export interface ChunkedTtsOptions {
  /** Audio is handed on in frames of this length. */
  frameMs: number;
}

export const defaults: ChunkedTtsOptions = { frameMs: 20 };

/**
 * Speech one text piece at a time through a whole-piece synthesiser: an in-process engine, or the
 * service's `POST /v1/tts` (the fallback when the live socket fails). Each piece is synthesised as soon as
 * it arrives; unsubscribing aborts the piece in flight.
 */
export class ChunkedTextToSpeech implements TextToSpeech {
  private readonly options: ChunkedTtsOptions;

  constructor(
    private readonly synthesize: SynthesizeChunk,
    options: Partial<ChunkedTtsOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
  }

  speak(request: SpeechRequest): Obs<{ frame: AudioFrame; words?: SpokenWord[] }> {
    return new Observable<{ frame: AudioFrame; words?: SpokenWord[] }>((subscriber) => {
      const abort = new AbortController();
      // Pieces are synthesised later, outside this context, so the reply's trace is captured now.
      const traceparent = traceparentOf();
      let offsetMs = 0;
      const subscription = request.text$
        .pipe(concatMap((text) => from(this.synthesize(text, abort.signal, traceparent, request.sampleRate))))
        .subscribe({
          next: (result) => {
            const samplesPerFrame = Math.max(1, Math.round((result.sampleRate * this.options.frameMs) / 1000));
            const whole: AudioFrame = { samples: result.samples, sampleRate: result.sampleRate, timestampMs: offsetMs };
            const words = result.words.map((w) => ({ word: w.word, startMs: w.startMs + offsetMs, endMs: w.endMs + offsetMs }));
            const frames = splitFrame(whole, samplesPerFrame);
            offsetMs += (result.samples.length * 1000) / result.sampleRate;
            if (result.charge !== undefined) request.charged?.(result.charge);
            frames.forEach((frame, index) => subscriber.next(index === 0 ? { frame, words } : { frame }));
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => subscriber.complete(),
        });
      return () => {
        abort.abort();
        subscription.unsubscribe();
      };
    });
  }
}
