import type { Transport } from '../agent/index.js';
import type { HeardTrack } from './heard-audio.js';

/**
 * The caller's end of a call on one of the lines a scenario names: it hands the caller's frames, keys and
 * hang-up to the agent's real transport in that line's wire format, and plays what the agent sends back.
 */
export interface Line {
  readonly transport: Transport;
  readonly sampleRate: number;
  /** Agent audio as the caller heard it. */
  readonly heard: HeardTrack;
  /** Messages the agent sent, by kind. */
  readonly sent: Record<string, number>;
  /** When the agent closed the call (it hung up), on the call's clock. */
  readonly closedAtMs: number | undefined;
  readonly isOpen: boolean;
  /** One frame of the caller's audio reaches the agent, coded as the line codes it. */
  deliver(samples: Int16Array): void;
  pressKey(digit: string): void;
  hangUp(): void;
  /** The caller's end has played the agent's audio up to `nowMs` (e.g. echoes a carrier's marks). */
  playUntil(nowMs: number): void;
  /** Resolves once the agent audio handed to the transport so far has gone out on the line. */
  playoutSent(): Promise<void>;
}
