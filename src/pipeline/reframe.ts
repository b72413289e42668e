import { Observable, type OperatorFunction } from 'rxjs';
import type { AudioFrame } from '../audio/index.js';

/**
 * Re-cuts a stream of frames into frames of exactly `samples` samples (e.g. the VAD's 512 at 16 kHz), or of
 * `samples(sampleRate)` at each rate. Holds at most one partial frame; a partial frame is zero-padded when it
 * has to go out early: on completion, or when the sample rate changes (it keeps the rate its samples had).
 */
export function reframe(samples: number | ((sampleRate: number) => number)): OperatorFunction<AudioFrame, AudioFrame> {
  const samplesAt = typeof samples === 'number' ? () => samples : samples;
  return (source) =>
    new Observable<AudioFrame>((subscriber) => {
      let buffer = new Int16Array(0);
      let filled = 0;
      let startMs = 0;
      let sampleRate = 0;
      const emit = () => {
        buffer.fill(0, filled);
        subscriber.next({ samples: buffer.slice(), sampleRate, timestampMs: startMs });
        filled = 0;
      };
      return source.subscribe({
        next: (frame) => {
          if (frame.sampleRate !== sampleRate) {
            if (filled > 0) emit();
            sampleRate = frame.sampleRate;
            buffer = new Int16Array(samplesAt(sampleRate));
          }
          let offset = 0;
          while (offset < frame.samples.length) {
            if (filled === 0) startMs = frame.timestampMs + (offset * 1000) / sampleRate;
            const take = Math.min(buffer.length - filled, frame.samples.length - offset);
            buffer.set(frame.samples.subarray(offset, offset + take), filled);
            filled += take;
            offset += take;
            if (filled === buffer.length) emit();
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          if (filled > 0) emit();
          subscriber.complete();
        },
      });
    });
}
