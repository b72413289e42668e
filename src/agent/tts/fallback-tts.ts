import { Observable, ReplaySubject } from 'rxjs';
import type { AudioFrame } from '../../audio/index.js';
import type { SpeechPreparation, SpeechRequest, SpokenWord, TextToSpeech } from '../contracts.js';

type SpeechAudio = { frame: AudioFrame; words?: SpokenWord[] };

/**
 * Speaks with `primary`; if it fails before producing any audio of a reply, the same reply is spoken with
 * `fallback` (e.g. live WebSocket first, HTTP `/v1/tts` per chunk second). `onFallback` is told why.
 */
export class FallbackTextToSpeech implements TextToSpeech {
  constructor(
    private readonly primary: TextToSpeech,
    private readonly fallback: TextToSpeech,
    private readonly onFallback: (error: unknown) => void = () => undefined,
  ) {}

  prepare(request?: SpeechPreparation): void {
    this.primary.prepare?.(request);
  }

  speak(request: SpeechRequest): Observable<SpeechAudio> {
    return new Observable<SpeechAudio>((subscriber) => {
      // The reply's text is kept so the fallback can start again from its first piece.
      const text$ = new ReplaySubject<string>();
      const textSubscription = request.text$.subscribe(text$);
      let heard = false;
      let fallbackSubscription: { unsubscribe(): void } | undefined;
      const primarySubscription = this.primary.speak({ ...request, text$ }).subscribe({
        next: (audio) => {
          heard = true;
          subscriber.next(audio);
        },
        error: (error: unknown) => {
          if (heard) {
            subscriber.error(error);
            return;
          }
          this.onFallback(error);
          fallbackSubscription = this.fallback.speak({ ...request, text$ }).subscribe(subscriber);
        },
        complete: () => subscriber.complete(),
      });
      return () => {
        primarySubscription.unsubscribe();
        fallbackSubscription?.unsubscribe();
        textSubscription.unsubscribe();
      };
    });
  }
}
