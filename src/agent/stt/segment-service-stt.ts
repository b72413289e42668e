import { addCharges } from '../../client/index.js';
import { Observable } from 'rxjs';
import type { AudioFrame } from '../../audio/index.js';
import { encodeWav, resample } from '../../audio/index.js';
import type { Expectation, WordTiming } from '../../speech/index.js';
import type { CallAudio, CallSpeechToText, SpeechToText, TranscriptEvent, WorkOptions } from '../contracts.js';
import { traceparentOf } from '../tracing.js';
import { isTelephoneBand } from './call-band.js';

/**
 * Sends one WAV to a recognition service (e.g. the client's `/v1/asr` call) and returns its text; `hints` are
 * what the caller is expected to say (the Shoal service's `hints` extension), when the call has expectations,
 * and `expected` whether the words came out as one of them (the Shoal service's `expected` extension).
 */
export type TranscribeWav = (
  wav: Uint8Array,
  signal: AbortSignal,
  traceparent: string | undefined,
  hints?: readonly Expectation[],
) => Promise<{ text: string; words: WordTiming[]; expected?: boolean; /** Credits billed, when the service says. */ charge?: number }>;

export interface SegmentServiceSttOptions {
  /** Re-transcribe the growing utterance every this many ms of audio for interims (low-latency); 0 for none. */
  interimEveryMs: number;
  /** The service needs at least this much audio per request (`/v1/asr`: 1 s); shorter audio is padded with silence. */
  minAudioMs: number;
}

export const defaults: SegmentServiceSttOptions = { interimEveryMs: 0, minAudioMs: 1000 };

/**
 * Recognition on a whole-utterance service, driven by VAD segments: the utterance is sent when the endpoint
 * fires; optionally the growing utterance is re-sent for interim transcripts (one request in flight at a time).
 */
export class SegmentServiceSpeechToText implements SpeechToText {
  private readonly options: SegmentServiceSttOptions;

  constructor(
    private readonly transcribeWav: TranscribeWav,
    options: Partial<SegmentServiceSttOptions> = {},
  ) {
    this.options = { ...defaults, ...options };
  }

  /**
   * A call's recognizer: the session's expectations go to the service as `hints` with each request, and a
   * telephone caller's audio goes as 8 kHz, which the service hears as telephone audio (Shoal's `/v1/asr`
   * does for uploads of 8 kHz or less).
   */
  forCall(call?: CallAudio): CallSpeechToText {
    let hints: readonly Expectation[] | undefined;
    return {
      transcribe: (utterance$, work) => this.transcribe(utterance$, work, hints, isTelephoneBand(call) ? 8000 : 16000),
      takesSampleRate: (rate) => this.takesSampleRate(rate),
      expect: (expectations) => (hints = expectations),
      release: () => undefined,
    };
  }

  /** A phone line's 8 kHz is taken as it is: it goes to the service at that rate without resampling. */
  takesSampleRate(sampleRate: number): boolean {
    return sampleRate === 8000 || sampleRate === 16000;
  }

  /** `uploadRate`: the rate the WAV is sent at (the utterance arrives at 16 kHz, or at 8 kHz from a phone line). */
  transcribe(utterance$: Observable<AudioFrame>, work: WorkOptions = {}, hints?: readonly Expectation[], uploadRate = 16000): Observable<TranscriptEvent> {
    const track = <T>(promise: Promise<T>) => (work.track ? work.track(promise) : promise);
    return new Observable<TranscriptEvent>((subscriber) => {
      // Requests are made later (at the endpoint) outside this context, so the trace is captured now.
      const traceparent = traceparentOf();
      const abort = new AbortController();
      const frames: Int16Array[] = [];
      let samples = 0;
      let rate = 0;
      let sinceInterimMs = 0;
      let interimInFlight = false;
      let finalSent = false;
      // Interims are billed too: their charges go with the final transcript.
      let interimCharges: number | undefined;
      const audioSoFar = () => {
        const minSamples = Math.ceil((this.options.minAudioMs * (rate || 16000)) / 1000);
        const joined = new Int16Array(Math.max(samples, minSamples));
        let offset = 0;
        for (const part of frames) {
          joined.set(part, offset);
          offset += part.length;
        }
        // Padding is faint noise, not digital zeros: recognisers normalise by the audio's mean spectrum,
        // which exact silence would drag far from any real recording.
        let seed = 12345;
        for (let i = offset; i < joined.length; i++) {
          seed = (seed * 1103515245 + 12345) & 0x7fffffff;
          joined[i] = (seed % 17) - 8;
        }
        return joined;
      };
      const send = () => {
        const request = (pcm: Int16Array, rate: number) => this.transcribeWav(encodeWav(pcm, rate), abort.signal, traceparent, hints);
        const audio = audioSoFar();
        const from = rate || 16000;
        return track(uploadRate === from ? request(audio, from) : resample(audio, from, uploadRate).then((pcm) => request(pcm, uploadRate)));
      };
      const subscription = utterance$.subscribe({
        next: (frame) => {
          if (!this.takesSampleRate(frame.sampleRate) || (rate && frame.sampleRate !== rate)) {
            subscriber.error(new RangeError(`speech recognition takes one utterance at 16000 or 8000 Hz, got ${frame.sampleRate} Hz${rate ? ` after ${rate} Hz` : ''}`));
            return;
          }
          rate = frame.sampleRate;
          frames.push(frame.samples);
          samples += frame.samples.length;
          sinceInterimMs += (frame.samples.length * 1000) / rate;
          if (this.options.interimEveryMs <= 0 || sinceInterimMs < this.options.interimEveryMs || interimInFlight) return;
          sinceInterimMs = 0;
          interimInFlight = true;
          send()
            .then((result) => {
              interimCharges = addCharges(interimCharges, result.charge);
              if (!finalSent && result.text) subscriber.next({ text: result.text, words: result.words, final: false });
            })
            // An interim is only a preview: its failure is not the utterance's; the final request reports errors.
            .catch(() => undefined)
            .finally(() => (interimInFlight = false));
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          finalSent = true;
          send().then(
            (result) => {
              const charge = addCharges(interimCharges, result.charge);
              subscriber.next({
                text: result.text,
                words: result.words,
                final: true,
                ...(result.expected !== undefined ? { expected: result.expected } : {}),
                ...(charge !== undefined ? { charge } : {}),
              });
              subscriber.complete();
            },
            (error: unknown) => subscriber.error(error),
          );
        },
      });
      return () => {
        subscription.unsubscribe();
        abort.abort();
      };
    });
  }
}
