import { concatMap, from, map, type OperatorFunction } from 'rxjs';
import type { AudioFrame } from '../audio/index.js';
import type { VoiceActivityDetector } from '../engines/index.js';
import type { Clock } from './clock.js';
import type { WorkTracker } from './work.js';

/** One VAD-sized frame with its speech probability and the clock time it reached the agent. */
export interface ScoredFrame {
  frame: AudioFrame;
  probability: number;
  arrivedMs: number;
}

/** Scores each frame (already cut to the detector's frame size at its rate) with the detector, in order. */
export function scoreSpeech(
  detector: VoiceActivityDetector,
  clock: Clock,
  tracker?: WorkTracker,
): OperatorFunction<AudioFrame, ScoredFrame> {
  return concatMap((frame) => {
    const arrivedMs = clock.now();
    const probability = detector.probability(frame.samples, frame.sampleRate);
    return from(tracker ? tracker.track(probability) : probability).pipe(
      map((value) => ({ frame, probability: value, arrivedMs })),
    );
  });
}
