import { filter, map, share, takeWhile, type Observable } from 'rxjs';
import type { AudioFrame } from '../audio/index.js';
import type { VoiceActivityDetector } from '../engines/index.js';
import type { Clock } from '../pipeline/clock.js';
import { reframe } from '../pipeline/reframe.js';
import { resampleTo } from '../pipeline/resample.js';
import { segmentUtterances, type UtteranceOptions, type VoiceEvent } from '../pipeline/utterances.js';
import { scoreSpeech } from '../pipeline/vad.js';
import type { WorkTracker } from '../pipeline/work.js';
import type { UtteranceFrame } from './contracts.js';

/**
 * Caller audio of any rate → 16 kHz → VAD frames → speech probability → utterances (shared by all listeners).
 * A caller at a rate both the VAD and the recognizer (`takesSampleRate`) take as it is (a phone line's 8 kHz
 * with Silero and hosted recognition) is not resampled: its frames and utterances stay at that rate.
 */
export function callerVoice(
  audio$: Observable<AudioFrame>,
  vad: VoiceActivityDetector,
  clock: Clock,
  tracker: WorkTracker,
  options: Partial<UtteranceOptions>,
  silenceMs?: () => number,
  takesSampleRate: (sampleRate: number) => boolean = () => false,
): Observable<VoiceEvent> {
  const native = (rate: number) => takesSampleRate(rate) && vad.frameSamplesAt?.(rate) !== undefined;
  return audio$.pipe(
    resampleTo(16000, native),
    reframe((rate) => (rate === 16000 ? vad.frameSamples : vad.frameSamplesAt!(rate)!)),
    scoreSpeech(vad, clock, tracker),
    segmentUtterances(options, silenceMs),
    share(),
  );
}

/** The audio of one utterance, completing at its endpoint. Subscribe at its `speech-start`. */
export function utteranceAudio(voice$: Observable<VoiceEvent>, utterance: number): Observable<UtteranceFrame> {
  return voice$.pipe(
    filter((e) => e.utterance === utterance),
    takeWhile((e) => e.type !== 'speech-end'),
    filter((e): e is Extract<VoiceEvent, { type: 'speech-audio' }> => e.type === 'speech-audio'),
    map((e) => ({ ...e.frame, speaking: e.speaking, endpointInMs: e.endpointInMs })),
  );
}
