import type { Observable } from 'rxjs';
import type { AudioFrame } from '../../audio/frame.js';

/**
 * What the LiveKit transport needs from a room, narrowed so the transport can be tested without a server.
 * `connectRoom` implements it over `@livekit/rtc-node`.
 */
export interface RoomLink {
  /** The caller's microphone audio, 16 kHz mono; completes when the caller leaves or the room disconnects. */
  readonly callerAudio$: Observable<AudioFrame>;
  /** The caller's participant attributes (a `traceparent` attribute carries the call's trace). */
  callerAttributes(): Record<string, string>;
  /** Emits once, with a reason, when the caller leaves or the room disconnects. */
  readonly callerLeft$: Observable<string>;
  /** Data messages from the caller (JSON-decoded where they parse). */
  readonly data$: Observable<unknown>;
  /** DTMF digits from a phone caller bridged into the room (LiveKit SIP). */
  readonly dtmf$: Observable<string>;
  /** The rate `publish` expects agent audio at. */
  readonly outputSampleRate: number;
  /** Hands agent audio to the room; resolves once the room's playout queue has room for more. */
  publish(frame: AudioFrame): Promise<void>;
  /** Drops the agent audio the room has queued but not yet sent. */
  clearQueue(): void;
  /** Milliseconds of agent audio queued in the room, not yet sent. */
  queuedMs(): number;
  sendData(message: unknown): Promise<void>;
  disconnect(): Promise<void>;
}
