import { Observable, type OperatorFunction } from 'rxjs';
import type { AudioFrame } from '../audio/index.js';
import { frameDurationMs } from '../audio/index.js';
import { speechDefaults } from '../engines/index.js';
import type { ScoredFrame } from './vad.js';

/** How speech probabilities become utterances. All durations in ms. */
export interface UtteranceOptions {
  /** Probability at or above which a frame counts as speech. */
  activationThreshold: number;
  /** Probability below which a frame counts as silence (hysteresis between the two). */
  deactivationThreshold: number;
  /**
   * Speech must last this long before an utterance starts: from a frame at or above `activationThreshold`,
   * through the frames after it down to `deactivationThreshold` (the hysteresis of Silero's own segmentation).
   */
  minSpeechMs: number;
  /** Silence that ends an utterance: the endpoint (per mode). */
  minSilenceMs: number;
  /** Audio kept from before the detected start and handed to recognition with the utterance. */
  prefixPaddingMs: number;
  /** An utterance is cut here even without silence. */
  maxUtteranceMs: number;
}

export const defaults: UtteranceOptions = { ...speechDefaults, minSpeechMs: 64, minSilenceMs: 500 };

export type VoiceEvent =
  /** Speech began `atMs` (audio time of the first speech frame); `arrivedMs` is clock time of detection. */
  | { type: 'speech-start'; utterance: number; atMs: number; arrivedMs: number }
  /**
   * Audio of the utterance (prefix padding, speech and the trailing silence), with speech heard so far;
   * `endpointInMs` is the silence the endpoint still needs after this frame, as it stands now.
   */
  | { type: 'speech-audio'; utterance: number; frame: AudioFrame; speechMs: number; speaking: boolean; endpointInMs: number }
  /**
   * The endpoint fired. `lastVoiceMs` is the audio time of the last speech sample and `lastVoiceArrivedMs`
   * the clock time it reached the agent; `endpointArrivedMs` is the clock time the endpoint fired.
   */
  | {
      type: 'speech-end';
      utterance: number;
      speechMs: number;
      lastVoiceMs: number;
      lastVoiceArrivedMs: number;
      endpointArrivedMs: number;
    };

/**
 * Turns scored frames into utterance events: hysteresis, minimum speech, prefix padding, endpoint silence.
 * `silenceMs`, when given, is asked for the endpoint silence at each frame instead of `minSilenceMs`.
 */
export function segmentUtterances(
  options: Partial<UtteranceOptions> = {},
  silenceMs?: () => number,
): OperatorFunction<ScoredFrame, VoiceEvent> {
  const o = { ...defaults, ...options };
  return (source) =>
    new Observable<VoiceEvent>((subscriber) => {
      let utterance = 0;
      let inUtterance = false;
      let candidate: ScoredFrame[] = [];
      let candidateSpeechMs = 0;
      let padding: ScoredFrame[] = [];
      let paddingMs = 0;
      let speechMs = 0;
      let silentMs = 0;
      let lengthMs = 0;
      let lastVoiceMs = 0;
      let lastVoiceArrivedMs = 0;

      const endpointSilenceMs = () => silenceMs?.() ?? o.minSilenceMs;
      const end = (endpointArrivedMs: number) => {
        inUtterance = false;
        subscriber.next({ type: 'speech-end', utterance, speechMs, lastVoiceMs, lastVoiceArrivedMs, endpointArrivedMs });
      };

      return source.subscribe({
        next: (scored) => {
          const durationMs = frameDurationMs(scored.frame);
          const { probability } = scored;
          if (!inUtterance) {
            // A phone line's short "yes" scores 0.57, 0.38, 0.45, 0.46, 0.56 (never two frames at 0.5 in a row).
            const continuesCandidate = candidate.length > 0 && probability >= o.deactivationThreshold;
            if (probability >= o.activationThreshold || continuesCandidate) {
              candidate.push(scored);
              candidateSpeechMs += durationMs;
              if (candidateSpeechMs < o.minSpeechMs) return;
              inUtterance = true;
              utterance++;
              speechMs = 0;
              silentMs = 0;
              lengthMs = 0;
              const first = candidate[0]!;
              subscriber.next({
                type: 'speech-start',
                utterance,
                atMs: first.frame.timestampMs,
                arrivedMs: scored.arrivedMs,
              });
              const endpointInMs = endpointSilenceMs();
              for (const pad of padding) {
                subscriber.next({ type: 'speech-audio', utterance, frame: pad.frame, speechMs: 0, speaking: false, endpointInMs });
              }
              for (const heard of candidate) {
                speechMs += frameDurationMs(heard.frame);
                lengthMs += frameDurationMs(heard.frame);
                lastVoiceMs = heard.frame.timestampMs + frameDurationMs(heard.frame);
                lastVoiceArrivedMs = heard.arrivedMs;
                subscriber.next({ type: 'speech-audio', utterance, frame: heard.frame, speechMs, speaking: true, endpointInMs });
              }
              padding = [];
              paddingMs = 0;
              candidate = [];
              candidateSpeechMs = 0;
              return;
            }
            // Not speech: a short candidate is folded back into the padding window.
            padding.push(...candidate, scored);
            paddingMs += candidateSpeechMs + durationMs;
            candidate = [];
            candidateSpeechMs = 0;
            while (padding.length > 0 && paddingMs - frameDurationMs(padding[0]!.frame) >= o.prefixPaddingMs) {
              paddingMs -= frameDurationMs(padding.shift()!.frame);
            }
            return;
          }
          lengthMs += durationMs;
          const speaking = probability >= o.deactivationThreshold;
          if (speaking) {
            speechMs += durationMs;
            silentMs = 0;
            lastVoiceMs = scored.frame.timestampMs + durationMs;
            lastVoiceArrivedMs = scored.arrivedMs;
          } else {
            silentMs += durationMs;
          }
          const neededMs = endpointSilenceMs();
          subscriber.next({ type: 'speech-audio', utterance, frame: scored.frame, speechMs, speaking, endpointInMs: Math.max(0, neededMs - silentMs) });
          if (silentMs >= neededMs || lengthMs >= o.maxUtteranceMs) end(scored.arrivedMs);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          if (inUtterance) end(lastVoiceArrivedMs);
          subscriber.complete();
        },
      });
    });
}
