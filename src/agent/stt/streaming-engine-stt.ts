import { defer, finalize, Observable } from 'rxjs';
import { frameDurationMs, type AudioFrame } from '../../audio/index.js';
import type { Hypothesis, SpeechRecognitionEngine, StreamingRecognizer } from '../../engines/index.js';
import type { CallAudio, CallSpeechToText, SpeechToText, TranscriptEvent, UtteranceFrame, WorkOptions } from '../contracts.js';
import { isTelephoneBand } from './call-band.js';
import { CallRecognizer } from './call-recognizer.js';
import { SpeechPauses } from './speech-pauses.js';

export interface StreamingEngineSttOptions {
  /** An interim transcript is asked for after each this many ms of new audio; 0 for finals only. */
  interimEveryMs: number;
  /**
   * After the caller's last speech the recognizer hears quiet frames until it has heard at least this much
   * quiet and the endpoint is `speechPausedLeadMs` or less away; later quiet frames are held back (written if
   * speech resumes, dropped at the endpoint). What the recognizer hears thus does not depend on when the
   * utterance is decoded (`decodeAtPause`). Chosen on the tuning fold of the human set (docs/listening.md).
   */
  trailingQuietMs: number;
  /** The time the recognizer is given, before the endpoint, to decode the utterance at the caller's pause. */
  speechPausedLeadMs: number;
  /**
   * Whether the recognizer is told of the pause (`StreamingRecognizer.speechPaused()`) when quiet frames start
   * to be held back, so it decodes the utterance during the endpoint's silence instead of after it; if the
   * caller speaks on, it decodes it again from the start. False: everything is decoded at the endpoint (the
   * same result, later).
   */
  decodeAtPause: boolean;
  language?: string;
}

/** The pause options, also settable on the agent stacks (`createEmbeddedAgentStack({ pauses })`). */
export type PauseOptions = Pick<StreamingEngineSttOptions, 'trailingQuietMs' | 'speechPausedLeadMs' | 'decodeAtPause'>;


export const defaults: StreamingEngineSttOptions = { interimEveryMs: 160, trailingQuietMs: 160, speechPausedLeadMs: 100, decodeAtPause: true };

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

  /** One recognizer for the whole call, so the decoder's cepstral mean adapts to the caller's line. */
  forCall(call?: CallAudio): CallSpeechToText {
    const recognizer = new CallRecognizer(() => this.createRecognizer(call));
    return {
      transcribe: (utterance$, work) => this.recognize(recognizer, utterance$, work),
      release: () => recognizer.release(),
      expect: (expectations) => {
        if (!recognizer.isReleased) void recognizer.expect(expectations).catch(() => undefined);
      },
    };
  }

  /** Each utterance on a fresh recognizer (nothing carries over); calls should use `forCall()`. */
  transcribe(utterance$: Observable<UtteranceFrame>, work: WorkOptions = {}): Observable<TranscriptEvent> {
    return defer(() => {
      const recognizer = new CallRecognizer(() => this.createRecognizer());
      return this.recognize(recognizer, utterance$, work).pipe(finalize(() => recognizer.release()));
    });
  }

  private createRecognizer(call?: CallAudio): StreamingRecognizer {
    return this.engine.createRecognizer({ language: this.options.language, telephoneBand: isTelephoneBand(call) });
  }

  private recognize(recognizer: CallRecognizer, utterance$: Observable<UtteranceFrame>, work: WorkOptions = {}): Observable<TranscriptEvent> {
    const track = <T>(promise: Promise<T>) => (work.track ? work.track(promise) : promise);
    return new Observable<TranscriptEvent>((subscriber) => {
      let sinceInterimMs = 0;
      const pauses = new SpeechPauses(this.options);
      let lastInterim = '';
      let stopped = false;
      let completed = false;
      const fail = (error: unknown) => {
        if (!stopped) subscriber.error(error);
        stopped = true;
      };
      let queued = 0;
      const step = (work: Promise<unknown>) => {
        queued++;
        void track(work.finally(() => queued--)).catch(fail);
      };
      if (recognizer.isReleased) {
        subscriber.error(new Error('the call speech recognizer was released'));
        return;
      }
      const emit = (hypothesis: Hypothesis, final: boolean) => {
        if (stopped) return;
        const expected = final && hypothesis.expected !== undefined ? { expected: hypothesis.expected } : {};
        subscriber.next({ text: hypothesis.text, words: hypothesis.words, final, ...expected });
      };
      const subscription = utterance$.subscribe({
        next: (frame) => {
          if (stopped) return;
          if (frame.sampleRate !== 16000) {
            fail(new RangeError(`speech recognition takes 16000 Hz audio, got ${frame.sampleRate} Hz`));
            return;
          }
          const cancelled = () => stopped;
          const written = pauses.next(frame) === 'write';
          if (written) {
            for (const held of pauses.release()) step(recognizer.write(held.samples, cancelled));
            step(recognizer.write(frame.samples, cancelled));
          }
          if (pauses.pauseDue()) step(recognizer.speechPaused());
          if (!written) return;
          sinceInterimMs += frameDurationMs(frame);
          // An interim only when the recognizer keeps up: a backlog would delay the final at the endpoint.
          if (this.options.interimEveryMs <= 0 || sinceInterimMs < this.options.interimEveryMs || queued > 1) return;
          sinceInterimMs = 0;
          step(
            recognizer.partial(cancelled).then((hypothesis) => {
              if (hypothesis?.text && hypothesis.text !== lastInterim) {
                lastInterim = hypothesis.text;
                emit(hypothesis, false);
              }
            }),
          );
        },
        error: fail,
        complete: () => {
          if (stopped) return;
          completed = true;
          step(
            recognizer.finish().then((hypothesis) => {
              emit(hypothesis, true);
              if (!stopped) subscriber.complete();
            }),
          );
        },
      });
      return () => {
        stopped = true;
        subscription.unsubscribe();
        // Given up half-way (barge-in cancelled, hangup, error): finish it so the next utterance starts clean.
        if (!completed && !recognizer.isReleased) void track(recognizer.abandonUtterance()).catch(() => undefined);
      };
    });
  }
}
