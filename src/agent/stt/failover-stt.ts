import { defer, finalize, from, map, Observable, ReplaySubject, switchMap, take, type Subscription } from 'rxjs';
import { Resampler } from '../../audio/index.js';
import type { Expectation } from '../../speech/index.js';
import type { CallAudio, CallSpeechToText, RecognitionCapabilities, SpeechToText, TranscriptEvent, UtteranceFrame, WorkOptions } from '../contracts.js';
import { releasedCharge, sumCharges } from '../charges.js';
import { countFailover } from '../provider-metrics.js';
import { ProviderError, isProviderError } from '../providers.js';

export interface FailoverSttOptions {
  /** After the endpoint, a provider that gives no final within this long counts as failed (`timeout`), ms. */
  finalTimeoutMs: number;
  /** Told of each hand-over (the metrics count it too). */
  onFailover?: (from: string, to: string, error: unknown) => void;
}

export const defaults: FailoverSttOptions = { finalTimeoutMs: 3000 };

/**
 * Recognition by the first of `providers` that works (`--stt deepgram,local`): when one fails (refuses, cannot be
 * reached, times out, drops its socket), the utterance so far is heard again by the next, which serves the rest
 * of the call. Audio goes to each at a rate it takes: the first's, else resampled to 16 kHz.
 */
export class FailoverSpeechToText implements SpeechToText {
  readonly provider: string;
  readonly capabilities?: RecognitionCapabilities;
  private readonly options: FailoverSttOptions;

  constructor(
    private readonly providers: readonly SpeechToText[],
    options: Partial<FailoverSttOptions> = {},
  ) {
    if (providers.length === 0) throw new RangeError('failover needs at least one recogniser');
    this.options = { ...defaults, ...options };
    this.provider = providers.map(nameOf).join(',');
    if (providers[0]!.capabilities) this.capabilities = providers[0]!.capabilities;
  }

  takesSampleRate(sampleRate: number): boolean {
    return sampleRate === 16000 || this.providers[0]!.takesSampleRate?.(sampleRate) === true;
  }

  forCall(call?: CallAudio): CallSpeechToText {
    return new FailoverCall(this.providers, this.options, call);
  }

  transcribe(utterance$: Observable<UtteranceFrame>, work?: WorkOptions): Observable<TranscriptEvent> {
    return defer(() => {
      const call = new FailoverCall(this.providers, this.options);
      return call.transcribe(utterance$, work).pipe(finalize(() => call.release()));
    });
  }
}

function nameOf(stt: SpeechToText, index: number): string {
  return stt.provider ?? `provider ${index + 1}`;
}

class FailoverCall implements CallSpeechToText {
  private active = 0;
  private readonly calls: Array<CallSpeechToText | SpeechToText | undefined> = [];
  private expectations: readonly Expectation[] | undefined;
  private released = false;

  constructor(
    private readonly providers: readonly SpeechToText[],
    private readonly options: FailoverSttOptions,
    private readonly call?: CallAudio,
  ) {}

  get provider(): string {
    return nameOf(this.providers[this.active]!, this.active);
  }

  /** The rate the call's audio comes at is chosen once, by the first provider (the others get it resampled). */
  takesSampleRate(sampleRate: number): boolean {
    return sampleRate === 16000 || this.providers[0]!.takesSampleRate?.(sampleRate) === true;
  }

  expect(expectations: readonly Expectation[] | undefined): void {
    this.expectations = expectations;
    for (const call of this.calls) (call as CallSpeechToText | undefined)?.expect?.(expectations);
  }

  transcribe(utterance$: Observable<UtteranceFrame>, work?: WorkOptions): Observable<TranscriptEvent> {
    return new Observable<TranscriptEvent>((subscriber) => {
      // The utterance's frames are kept so that the next provider hears it from its start.
      const frames$ = new ReplaySubject<UtteranceFrame>();
      const input = utterance$.subscribe(frames$);
      let attempt: Subscription | undefined;
      const start = (index: number) => {
        const name = nameOf(this.providers[index]!, index);
        const stt = this.recogniserAt(index);
        const heard$ = stt.transcribe(this.framesFor(index, frames$), work);
        attempt = heard$.pipe(timeoutAfterEndpoint(frames$, this.options.finalTimeoutMs, name)).subscribe({
          next: (event) => subscriber.next(event.provider ? event : { ...event, provider: name }),
          complete: () => subscriber.complete(),
          error: (error: unknown) => {
            const next = index + 1;
            if (this.released || next >= this.providers.length) {
              subscriber.error(error);
              return;
            }
            const to = nameOf(this.providers[next]!, next);
            countFailover('stt', name, to, isProviderError(error) ? error.kind : 'error');
            this.options.onFailover?.(name, to, error);
            this.active = Math.max(this.active, next);
            start(next);
          },
        });
      };
      start(this.active);
      return () => {
        attempt?.unsubscribe();
        input.unsubscribe();
      };
    });
  }

  /** Releases each provider's call; resolves with the credits they reported at release, summed. */
  release(): Promise<number | undefined> {
    if (this.released) return Promise.resolve(undefined);
    this.released = true;
    const charges = this.calls.map((call) => releasedCharge((call as CallSpeechToText | undefined)?.release?.()));
    return Promise.all(charges).then(sumCharges);
  }

  private recogniserAt(index: number): SpeechToText {
    let made = this.calls[index];
    if (!made) {
      const stt = this.providers[index]!;
      made = stt.forCall ? stt.forCall(this.call) : stt;
      if (this.expectations) (made as CallSpeechToText).expect?.(this.expectations);
      this.calls[index] = made;
    }
    return made;
  }

  /** The frames at a rate provider `index` takes: as they come, else resampled to 16 kHz. */
  private framesFor(index: number, frames$: Observable<UtteranceFrame>): Observable<UtteranceFrame> {
    const stt = this.providers[index]!;
    return frames$.pipe(
      take(1),
      switchMap((first) => {
        if (first.sampleRate === 16000 || stt.takesSampleRate?.(first.sampleRate)) return frames$;
        return from(Resampler.create(first.sampleRate, 16000)).pipe(
          switchMap((resampler) => frames$.pipe(map((frame): UtteranceFrame => ({ ...frame, ...resampler.processFrame(frame) })), finalize(() => resampler.destroy()))),
        );
      }),
    );
  }
}

/** Fails with `timeout` when no final comes within `ms` after the utterance's end (Shoal's endpoint). */
function timeoutAfterEndpoint(frames$: Observable<UtteranceFrame>, ms: number, provider: string) {
  return (source: Observable<TranscriptEvent>) =>
    new Observable<TranscriptEvent>((subscriber) => {
      let timer: NodeJS.Timeout | undefined;
      const ended = frames$.subscribe({
        complete: () => {
          timer = setTimeout(() => subscriber.error(new ProviderError(provider, 'timeout', `no final transcript ${ms} ms after the endpoint`)), ms);
        },
        error: () => undefined,
      });
      const inner = source.subscribe({
        next: (event) => {
          if (event.final) clearTimeout(timer);
          subscriber.next(event);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => {
        clearTimeout(timer);
        ended.unsubscribe();
        inner.unsubscribe();
      };
    });
}
