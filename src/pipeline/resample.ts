import { Observable, type OperatorFunction } from 'rxjs';
import type { AudioFrame } from '../audio/index.js';
import { Resampler } from '../audio/index.js';

/**
 * Converts frames of any (possibly changing) sample rate to `rate`. Frames already at `rate`, or at a rate
 * `keep` accepts, pass through untouched; the resampler is created lazily per input rate and destroyed on
 * unsubscribe.
 */
export function resampleTo(rate: number, keep: (sampleRate: number) => boolean = () => false): OperatorFunction<AudioFrame, AudioFrame> {
  return (source) =>
    new Observable<AudioFrame>((subscriber) => {
      let resampler: Resampler | undefined;
      let pending: Promise<void> = Promise.resolve();
      let closed = false;
      /** Frames in the promise chain not emitted yet: a frame at `rate` may only skip the chain when it is empty. */
      let queued = 0;
      const subscription = source.subscribe({
        next: (frame) => {
          const target = frame.sampleRate === rate || keep(frame.sampleRate);
          if (target && !resampler && queued === 0) {
            subscriber.next(frame);
            return;
          }
          // Once the resampler exists, a frame at its rate behind none waiting is converted at once: no promise per frame.
          if (resampler?.inputRate === frame.sampleRate && queued === 0) {
            let converted: AudioFrame;
            try {
              converted = resampler.processFrame(frame);
            } catch (error) {
              subscriber.error(error);
              return;
            }
            subscriber.next(converted);
            return;
          }
          // Resampler creation is async (WASM load) once; frames keep their order through one promise chain.
          queued++;
          pending = pending
            .then(async () => {
              if (closed) return;
              if (!resampler || resampler.inputRate !== frame.sampleRate) {
                resampler?.destroy();
                resampler = target ? undefined : await Resampler.create(frame.sampleRate, rate);
              }
              if (closed) return;
              subscriber.next(resampler ? resampler.processFrame(frame) : frame);
            })
            .finally(() => queued--);
          pending.catch((error: unknown) => subscriber.error(error));
        },
        error: (error: unknown) => {
          const fail = () => subscriber.error(error);
          void pending.then(fail, fail);
        },
        complete: () => {
          void pending.then(() => subscriber.complete(), () => undefined);
        },
      });
      return () => {
        closed = true;
        subscription.unsubscribe();
        void pending.catch(() => undefined).finally(() => resampler?.destroy());
      };
    });
}
