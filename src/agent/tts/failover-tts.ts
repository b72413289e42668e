import { frameDurationMs } from '../../audio/index.js';
import { Observable, ReplaySubject, type Subscription } from 'rxjs';
import type { SpeechPreparation, SpeechRequest, SpokenAudio, SynthesisCapabilities, TextToSpeech } from '../contracts.js';
import { countFailover } from '../provider-metrics.js';
import { isProviderError } from '../providers.js';

/**
 * Synthesis by the first of `providers` that works (`--tts cartesia,service`): when one fails, the reply goes on
 * with the next, which serves the rest of the call. A reply that failed before any audio is spoken again whole;
 * one that failed after some goes on from the words already given (by the provider's word timings), else whole.
 */
export class FailoverTextToSpeech implements TextToSpeech {
  readonly provider: string;
  readonly capabilities?: SynthesisCapabilities;
  private active = 0;

  constructor(
    private readonly providers: readonly TextToSpeech[],
    private readonly onFailover: (from: string, to: string, error: unknown) => void = () => undefined,
  ) {
    if (providers.length === 0) throw new RangeError('failover needs at least one synthesiser');
    this.provider = providers.map(nameOf).join(',');
    if (providers[0]!.capabilities) this.capabilities = providers[0]!.capabilities;
  }

  prepare(request?: SpeechPreparation): void {
    this.providers[this.active]!.prepare?.(request);
  }

  speak(request: SpeechRequest): Observable<SpokenAudio> {
    return new Observable<SpokenAudio>((subscriber) => {
      // The reply's text is kept so the next provider can take it up.
      const text$ = new ReplaySubject<string>();
      const textSubscription = request.text$.subscribe(text$);
      let attempt: Subscription | undefined;
      let wordsGiven = 0;
      let audioMs = 0;
      const start = (index: number, skipWords: number) => {
        const name = nameOf(this.providers[index]!, index);
        // The next provider times its words from its own start: moved to where its audio goes in the reply.
        const offsetMs = audioMs;
        attempt = this.providers[index]!.speak({ ...request, text$: skipWords > 0 ? afterWords(text$, skipWords) : text$ }).subscribe({
          next: (audio) => {
            wordsGiven += audio.words?.length ?? 0;
            audioMs += frameDurationMs(audio.frame);
            const words = offsetMs > 0 && audio.words ? { words: audio.words.map((w) => ({ ...w, startMs: w.startMs + offsetMs, endMs: w.endMs + offsetMs })) } : {};
            subscriber.next({ ...audio, ...words, provider: audio.provider ?? name });
          },
          complete: () => subscriber.complete(),
          error: (error: unknown) => {
            const next = index + 1;
            if (next >= this.providers.length) {
              subscriber.error(error);
              return;
            }
            const to = nameOf(this.providers[next]!, next);
            countFailover('tts', name, to, isProviderError(error) ? error.kind : 'error');
            this.onFailover(name, to, error);
            this.active = Math.max(this.active, next);
            start(next, wordsGiven);
          },
        });
      };
      start(this.active, 0);
      return () => {
        attempt?.unsubscribe();
        textSubscription.unsubscribe();
      };
    });
  }
}

function nameOf(tts: TextToSpeech, index: number): string {
  return tts.provider ?? `provider ${index + 1}`;
}

/** The text deltas of `text$` without their first `count` words. */
export function afterWords(text$: Observable<string>, count: number): Observable<string> {
  return new Observable<string>((subscriber) => {
    let toSkip = count;
    let inWord = false;
    return text$.subscribe({
      next: (delta) => {
        if (toSkip <= 0 && !inWord) {
          subscriber.next(delta);
          return;
        }
        let index = 0;
        for (; index < delta.length; index++) {
          const space = /\s/.test(delta[index]!);
          if (space && inWord) {
            inWord = false;
            toSkip--;
            if (toSkip <= 0) break;
          } else if (!space) inWord = true;
        }
        const rest = delta.slice(index).replace(/^\s+/, '');
        if (toSkip <= 0 && rest) subscriber.next(rest);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
  });
}
