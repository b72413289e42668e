import { BehaviorSubject, ReplaySubject, Subject, skip } from 'rxjs';
import type { AudioFrame } from '../../src/audio/frame.js';
import type { RoomLink, RoomOperations, RoomParticipant, SipOperations, TextStreamOptions, TextStreamSink } from '../../src/transports/livekit/index.js';

/** A text stream as the room double recorded it. */
export interface RecordedStream extends TextStreamOptions {
  chunks: string[];
  closed: boolean;
}

/**
 * An in-memory room: the test makes the caller join, change attributes, speak and leave; the double records
 * what the agent published (audio, attributes, text streams, data). Its playout queue drains only when the
 * test says so, unless `autoDrain` is set.
 */
export class RoomDouble implements RoomLink {
  readonly roomName: string;
  readonly agentIdentity: string;
  readonly callerSubject = new ReplaySubject<RoomParticipant>(1);
  readonly callerAudio = new Subject<AudioFrame>();
  readonly left = new ReplaySubject<string>(1);
  readonly data = new Subject<unknown>();
  readonly dtmf = new Subject<string>();
  readonly reconnecting = new BehaviorSubject(false);
  readonly caller$ = this.callerSubject.asObservable();
  readonly callerAudio$ = this.callerAudio.asObservable();
  readonly callerLeft$ = this.left.asObservable();
  readonly data$ = this.data.asObservable();
  readonly dtmf$ = this.dtmf.asObservable();
  readonly reconnecting$ = this.reconnecting.pipe(skip(1));
  readonly outputSampleRate = 24000;
  readonly published: AudioFrame[] = [];
  readonly sent: unknown[] = [];
  readonly streams: RecordedStream[] = [];
  /** Every `lk.agent.state` (and other attribute) change, in order. */
  readonly agentAttributes: Array<Record<string, string>> = [];
  attributes: Record<string, string> = {};
  caller: RoomParticipant | undefined;
  queued = 0;
  autoDrain = false;
  disconnected = false;
  private waiting: Array<() => void> = [];

  constructor(name = 'room-1', agentIdentity = 'agent-AJ_1') {
    this.roomName = name;
    this.agentIdentity = agentIdentity;
  }

  join(participant: Partial<RoomParticipant> & { identity: string }): void {
    this.caller = { kind: 'standard', attributes: {}, ...participant };
    this.attributes = this.caller.attributes;
    this.callerSubject.next(this.caller);
  }
  setCallerAttributes(attributes: Record<string, string>): void {
    this.attributes = { ...this.attributes, ...attributes };
    this.caller = { ...this.caller!, attributes: this.attributes };
    this.callerSubject.next(this.caller);
  }
  leave(reason = 'caller left the room'): void {
    for (const subject of [this.callerSubject, this.callerAudio, this.data, this.dtmf]) subject.complete();
    this.left.next(reason);
    this.left.complete();
  }
  callerAttributes() {
    return this.attributes;
  }
  callerTrackId() {
    return this.caller ? 'TR_caller_mic' : undefined;
  }
  agentTrackId() {
    return 'TR_agent_voice';
  }
  publish(frame: AudioFrame) {
    this.published.push(frame);
    if (this.autoDrain) return Promise.resolve();
    this.queued += (frame.samples.length * 1000) / frame.sampleRate;
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  drainOne() {
    this.waiting.shift()?.();
  }
  clearQueue() {
    this.queued = 0;
  }
  queuedMs() {
    return this.queued;
  }
  async sendData(message: unknown) {
    this.sent.push(message);
  }
  async setAgentAttributes(attributes: Record<string, string>) {
    this.agentAttributes.push(attributes);
  }
  async openTextStream(options: TextStreamOptions): Promise<TextStreamSink> {
    const stream: RecordedStream = { ...options, chunks: [], closed: false };
    this.streams.push(stream);
    return {
      write: async (text) => {
        if (stream.closed) throw new Error('write after close');
        stream.chunks.push(text);
      },
      close: async () => {
        stream.closed = true;
      },
    };
  }
  async disconnect() {
    this.disconnected = true;
    if (!this.left.closed) this.leave('agent hung up');
  }
}

/** LiveKit server API calls (RoomService, SIP) as `CallControl` makes them, recorded one line each. */
export class ServerApiDouble implements RoomOperations, SipOperations {
  readonly calls: string[] = [];
  async deleteRoom(room: string) {
    this.calls.push(`deleteRoom ${room}`);
  }
  async removeParticipant(room: string, identity: string) {
    this.calls.push(`removeParticipant ${room} ${identity}`);
  }
  async transferSipParticipant(room: string, identity: string, to: string) {
    this.calls.push(`transfer ${room} ${identity} ${to}`);
  }
}
