import { VoiceAgent, type AgentEvent } from '../../src/agent/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, ToneTts } from './agent-doubles.js';

/** A call on a virtual clock with the doubles: two caller utterances by default, every event and the summary. */
export async function virtualCall(options: Partial<ConstructorParameters<typeof VoiceAgent>[0]> = {}, segments = [
  { atMs: 500, ms: 600, amplitude: 5000 },
  { atMs: 4000, ms: 700, amplitude: 8000 },
], totalMs = 8000, transportOptions: { minTailMs?: number } = {}) {
  const clock = new VirtualClock();
  const agent = new VoiceAgent({
    dialogue: new FixedDialogue((input) => `you said ${input.userText}.`, 'Hi there.'),
    stt: new AmplitudeStt(),
    tts: new ToneTts(),
    vad: () => new EnergyVad(),
    mode: 'balanced',
    clock,
    ...options,
  });
  const transport = new FileTransport(callerTrack(totalMs, segments), clock, { maxTailMs: 60_000, ...transportOptions });
  const session = agent.handle(transport);
  transport.settle = () => session.settled();
  const events: AgentEvent[] = [];
  session.events$.subscribe((event) => events.push(event));
  const summary = await session.summary;
  return { events, summary, track: await transport.agentTrack(16000), session };
}
