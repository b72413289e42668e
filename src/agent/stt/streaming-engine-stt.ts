import { Observable } from 'rxjs';
import type { AudioFrame } from '../../audio/index.js';
import type { Hypothesis, SpeechRecognitionEngine, StreamingRecognizer } from '../../engines/index.js';
import type { SpeechToText, TranscriptEvent, WorkOptions } from '../contracts.js';

export interface StreamingEngineSttOptions {
  /** An interim transcript is asked for after each this many ms of new audio; 0 for finals only. */
  interimEveryMs: number;
  language?: string;
}

export const defaults: StreamingEngineSttOptions = { interimEveryMs: 160 };

/**
 * True streaming recognition on an in-process engine (pocketsphinx): each frame is written as it arrives,
 * interims come from `partial()`, the final from `finish()` when the utterance completes (the endpoint).
 */
export class StreamingEngineSpeechToText implements SpeechToText {
  private readonly options: StreamingEngineSttOptions;

  constructor(
    private readonly engine: SpeechRecognitionEngine,
    options: Partial<StreamingEngineSttOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
  }

  transcribe(utterance$: Observable<AudioFrame>, work: WorkOptions = {}): Observable<TranscriptEvent> {
    const track = <T>(promise: Promise<T>) => (work.track ? work.track(promise) : promise);
    return new Observable<TranscriptEvent>((subscriber) => {
      let recognizer: StreamingRecognizer | undefined;
      let chain: Promise<void> = Promise.resolve();
      let sinceInterimMs = 0;
      let lastInterim = '';
      let stopped = false;
      const fail = (error: unknown) => {
        if (!stopped) subscriber.error(error);
        stopped = true;
      };
      let queued = 0;
      const step = (action: (r: StreamingRecognizer) => Promise<void>) => {
        queued++;
        chain = chain.then(() => (stopped ? undefined : action(recognizer!))).finally(() => queued--);
        void track(chain).catch(fail);
      };
      try {
        recognizer = this.engine.createRecognizer({ language: this.options.language });
      } catch (error) {
        subscriber.error(error);
        return;
      }
      const emit = (hypothesis: Hypothesis, final: boolean) => {
        if (!stopped) subscriber.next({ text: hypothesis.text, words: hypothesis.words, final });
      };
      const subscription = utterance$.subscribe({
        next: (frame) => {
          if (frame.sampleRate !== 16000) {
            fail(new RangeError(`speech recognition takes 16000 Hz audio, got ${frame.sampleRate} Hz`));
            return;
          }
          sinceInterimMs += (frame.samples.length * 1000) / frame.sampleRate;
          // An interim only when the recognizer keeps up: a backlog would delay the final at the endpoint.
          const wantInterim = this.options.interimEveryMs > 0 && sinceInterimMs >= this.options.interimEveryMs && queued === 0;
          if (wantInterim) sinceInterimMs = 0;
          step(async (r) => {
            await r.write(frame.samples);
            if (!wantInterim || stopped) return;
            const hypothesis = await r.partial();
            if (hypothesis.text && hypothesis.text !== lastInterim) {
              lastInterim = hypothesis.text;
              emit(hypothesis, false);
            }
          });
        },
        error: fail,
        complete: () =>
          step(async (r) => {
            const hypothesis = await r.finish();
            emit(hypothesis, true);
            if (!stopped) subscriber.complete();
          }),
      });
      return () => {
        stopped = true;
        subscription.unsubscribe();
        const r = recognizer;
        void chain.catch(() => undefined).finally(() => r?.close());
      };
    });
  }
}
