import { concatMap, interval, Subject, Subscription, type Observable } from 'rxjs';
import type { AgentEvent } from '../../agent/index.js';
import type { RoomLink, TextStreamSink } from './room-link.js';

/** Names LiveKit front ends (agents-playground, components-react `useVoiceAssistant`/`useTranscriptions`) read. */
export const liveKitNames = {
  transcriptionTopic: 'lk.transcription',
  segmentId: 'lk.segment_id',
  transcriptionFinal: 'lk.transcription_final',
  transcribedTrackId: 'lk.transcribed_track_id',
  agentState: 'lk.agent.state',
} as const;

export type AgentState = 'initializing' | 'listening' | 'thinking' | 'speaking';

export interface RoomConventionOptions {
  /** How often the agent's transcript catches up with the words played so far, in ms. */
  agentTranscriptIntervalMs?: number;
}

export const defaults = {
  agentTranscriptIntervalMs: 250,
};

/** The parts of a call session the conventions follow. */
export interface SpokenSession {
  readonly events$: Observable<AgentEvent>;
  /** What the caller has heard of the current agent reply; `undefined` while the agent is silent. */
  heardAgentText(): string | undefined;
}

/** The agent reply being transcribed: its stream, the text written so far, the timer catching up with playout. */
interface AgentSegment {
  sink: Promise<TextStreamSink>;
  written: string;
  timer: Subscription;
}

/**
 * Keeps a LiveKit room informed the way LiveKit's own agents do: the agent participant's `lk.agent.state`
 * attribute, and transcriptions of both sides as text streams on `lk.transcription` — the caller's as
 * interim and final snapshots sent on their behalf, the agent's as one stream per reply, written as the
 * words are played (so an interrupted reply shows only what was heard).
 */
export class RoomConventions {
  private readonly writes = new Subject<() => Promise<void>>();
  private readonly subscription = new Subscription();
  private state: AgentState | undefined;
  private userSegment = 0;
  private agentStream: AgentSegment | undefined;
  private readonly following = new Subscription();

  constructor(
    private readonly link: RoomLink,
    private readonly options: RoomConventionOptions = {},
  ) {
    // Room writes go out one at a time, in order; a failed write is dropped, never ends the call.
    this.subscription.add(this.writes.pipe(concatMap((write) => write().catch(() => undefined))).subscribe());
  }

  setState(state: AgentState): void {
    if (state === this.state) return;
    this.state = state;
    this.enqueue(() => this.link.setAgentAttributes({ [liveKitNames.agentState]: state }));
  }

  /** Follows one call: agent state and transcripts until the session hangs up. */
  follow(session: SpokenSession, callerIdentity: string): void {
    this.setState('listening');
    this.following.add(session.events$.subscribe((event) => this.onEvent(event, session, callerIdentity)));
  }

  /** Stops following; writes already queued still go out. */
  close(): void {
    this.closeAgentSegment(undefined);
    this.following.unsubscribe();
    this.writes.complete();
  }

  private onEvent(event: AgentEvent, session: SpokenSession, callerIdentity: string): void {
    switch (event.type) {
      case 'user-started-speaking':
        if (this.state !== 'speaking') this.setState('listening');
        break;
      case 'transcript':
        if (event.text.trim()) this.userTranscript(event.text, event.final, callerIdentity);
        if (event.final && event.text.trim() && this.state !== 'speaking') this.setState('thinking');
        break;
      case 'agent-started-speaking':
        this.setState('speaking');
        this.openAgentSegment(event.turn, session);
        break;
      case 'agent-stopped-speaking':
        this.setState('listening');
        break;
      case 'turn-metrics':
        this.closeAgentSegment(event.report.agentText);
        break;
    }
  }

  private userTranscript(text: string, final: boolean, callerIdentity: string): void {
    const attributes = {
      [liveKitNames.segmentId]: `SG_${this.link.roomName}_caller_${this.userSegment}`,
      [liveKitNames.transcriptionFinal]: String(final),
      ...this.trackAttribute(this.link.callerTrackId()),
    };
    if (final) this.userSegment += 1;
    this.enqueue(async () => {
      const sink = await this.link.openTextStream({ topic: liveKitNames.transcriptionTopic, attributes, senderIdentity: callerIdentity });
      await sink.write(text);
      await sink.close();
    });
  }

  private openAgentSegment(turn: number, session: SpokenSession): void {
    this.closeAgentSegment(undefined);
    const attributes = {
      [liveKitNames.segmentId]: `SG_${this.link.roomName}_agent_${turn}_${Date.now().toString(36)}`,
      [liveKitNames.transcriptionFinal]: 'false',
      ...this.trackAttribute(this.link.agentTrackId()),
    };
    let opened!: { resolve(sink: TextStreamSink): void; reject(error: unknown): void };
    const sink = new Promise<TextStreamSink>((resolve, reject) => (opened = { resolve, reject }));
    this.enqueue(() =>
      this.link.openTextStream({ topic: liveKitNames.transcriptionTopic, attributes, senderIdentity: this.link.agentIdentity }).then(opened.resolve, (error: unknown) => {
        opened.reject(error); // the writes waiting for this stream are dropped with it
        throw error;
      }),
    );
    const stream: AgentSegment = { sink, written: '', timer: new Subscription() };
    stream.timer = interval(this.options.agentTranscriptIntervalMs ?? defaults.agentTranscriptIntervalMs).subscribe(() => {
      const heard = session.heardAgentText();
      if (heard) this.writeAgentText(stream, heard);
    });
    this.following.add(stream.timer);
    this.agentStream = stream;
  }

  /** Writes what was heard beyond what is already in the stream; text is only ever appended. */
  private writeAgentText(stream: AgentSegment, heard: string): void {
    if (heard.length <= stream.written.length || !heard.startsWith(stream.written)) return;
    const delta = heard.slice(stream.written.length);
    stream.written = heard;
    this.enqueue(async () => (await stream.sink).write(delta));
  }

  private closeAgentSegment(finalText: string | undefined): void {
    const stream = this.agentStream;
    if (!stream) return;
    this.agentStream = undefined;
    stream.timer.unsubscribe();
    if (finalText) this.writeAgentText(stream, finalText);
    this.enqueue(async () => (await stream.sink).close());
  }

  private trackAttribute(trackId: string | undefined): Record<string, string> {
    return trackId ? { [liveKitNames.transcribedTrackId]: trackId } : {};
  }

  private enqueue(write: () => Promise<void>): void {
    if (!this.writes.closed) this.writes.next(write);
  }
}
