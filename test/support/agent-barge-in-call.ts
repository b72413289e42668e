import { VoiceAgent, type AgentEvent } from '../../src/agent/index.js';
import { systemClock, VirtualClock, type Clock } from '../../src/pipeline/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, LONG_REPLY, PacedToneTts, ToneTts, WORD_MS } from './agent-doubles.js';

/** The barge-in calls of agent-barge-in*.test.ts: the doubles of agent-doubles.ts on a virtual or the wall clock. */
export class RecordingFileTransport extends FileTransport {
  clears: number[] = [];
  override clear(): void {
    this.clears.push((this as unknown as { positionMs(): number }).positionMs());
    super.clear();
  }
}

/**
 * A call on a virtual clock (engines take no call time) or, with `realTime`, on the wall clock with synthesis
 * paced at twice real time, so that a reply is still being synthesised when the caller barges in.
 */
export async function runCall(segments: { atMs: number; ms: number; amplitude: number }[], totalMs = 10_000, realTime = false) {
  const clock: Clock = realTime ? systemClock : new VirtualClock();
  const tts = realTime ? new PacedToneTts(clock) : new ToneTts();
  const paced = tts instanceof PacedToneTts ? tts : undefined;
  const agent = new VoiceAgent({ dialogue: new FixedDialogue(), stt: new AmplitudeStt(), tts, vad: () => new EnergyVad(), mode: 'balanced', clock });
  const transport = new RecordingFileTransport(callerTrack(totalMs, segments), clock, { maxTailMs: realTime ? 500 : 8000 });
  const session = agent.handle(transport);
  if (!realTime) transport.settle = () => session.settled();
  const events: AgentEvent[] = [];
  const eventAtMs = new Map<AgentEvent['type'], number>();
  /** How many frames each paced synthesis had made when an event first came. */
  const synthesisFramesAtEvent = new Map<AgentEvent['type'], number[]>();
  session.events$.subscribe((event) => {
    events.push(event);
    if (!eventAtMs.has(event.type)) eventAtMs.set(event.type, clock.now());
    if (paced && !synthesisFramesAtEvent.has(event.type)) synthesisFramesAtEvent.set(event.type, paced.syntheses.map((s) => s.frames));
  });
  const summary = await session.summary;
  const track = await transport.agentTrack(16000);
  return { session, events, eventAtMs, synthesisFramesAtEvent, summary, transport, track, paced };
}

export const replyMs = LONG_REPLY.split(' ').length * WORD_MS;
export const agentAudioMs = (track: Int16Array) => (track.reduce((n, s) => n + (s !== 0 ? 1 : 0), 0) * 1000) / 16000;

