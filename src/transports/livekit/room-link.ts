import type { Observable } from 'rxjs';
import type { AudioFrame } from '../../audio/frame.js';

/** LiveKit's participant kinds, by name. */
export type ParticipantKindName = 'standard' | 'ingress' | 'egress' | 'sip' | 'agent' | 'connector' | 'bridge' | 'unknown';

/** A participant as the agent sees it: who, what kind, and their attributes (e.g. `traceparent`, `sip.*`). */
export interface RoomParticipant {
  identity: string;
  name?: string;
  kind: ParticipantKindName;
  attributes: Record<string, string>;
}

/** A text stream the agent writes into the room (a transcription segment); chunks arrive in order. */
export interface TextStreamSink {
  write(text: string): Promise<void>;
  close(): Promise<void>;
}

export interface TextStreamOptions {
  topic: string;
  attributes: Record<string, string>;
  /** The participant the text is about (a caller's transcript is sent on their behalf). */
  senderIdentity?: string;
}

/**
 * What the LiveKit transport and a LiveKit job need from a room, narrowed so both can be tested without a
 * server. `connectRoom` implements it over `@livekit/rtc-node`.
 */
export interface RoomLink {
  readonly roomName: string;
  /** The agent's own identity in the room. */
  readonly agentIdentity: string;
  /**
   * The caller, once one that matches the link's caller selection is in the room: emits when they join and
   * again each time their attributes change; completes when they leave or the room disconnects.
   */
  readonly caller$: Observable<RoomParticipant>;
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
  /** `true` when the room connection is lost and being re-established, `false` once it is back. */
  readonly reconnecting$: Observable<boolean>;
  /** The rate `publish` expects agent audio at. */
  readonly outputSampleRate: number;
  /** Track ids the transcription attributes name: the caller's microphone and the agent's voice. */
  callerTrackId(): string | undefined;
  agentTrackId(): string | undefined;
  /** Hands agent audio to the room; resolves once the room's playout queue has room for more. */
  publish(frame: AudioFrame): Promise<void>;
  /** Drops the agent audio the room has queued but not yet sent. */
  clearQueue(): void;
  /** Milliseconds of agent audio queued in the room, not yet sent. */
  queuedMs(): number;
  sendData(message: unknown): Promise<void>;
  /** Sets attributes of the agent participant (e.g. `lk.agent.state`). */
  setAgentAttributes(attributes: Record<string, string>): Promise<void>;
  openTextStream(options: TextStreamOptions): Promise<TextStreamSink>;
  disconnect(): Promise<void>;
}
