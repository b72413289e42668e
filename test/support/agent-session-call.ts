import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { VoiceAgent, type AgentEvent, type TransportEvent } from '../../src/agent/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, ToneTts } from './agent-doubles.js';

/**
 * A whole call on the virtual clock with the doubles (greeting "Hi there.", replies "you said …"), where the
 * transport also brings events (keypad keys, a hang-up, machine detection) at given call times, and its audio
 * fails at `audioFailsAtMs`. Returns every event, the summary, the transport's own hang-ups, its clears (call
 * times) and the finished spans. A `VirtualClock` given as `clock` is the call's clock (for doubles that read it).
 */
export type SessionCallOptions = Partial<ConstructorParameters<typeof VoiceAgent>[0]>;

export async function sessionCall(
  options: SessionCallOptions = {},
  transportEvents: Array<{ atMs: number; event: TransportEvent }> = [],
  segments: Array<{ atMs: number; ms: number; amplitude: number }> = [],
  totalMs = 6000,
  audioFailsAtMs = Infinity,
) {
  const clock = options.clock instanceof VirtualClock ? options.clock : new VirtualClock();
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
  const dialogue = new FixedDialogue((input) => `you said ${input.userText}.`, 'Hi there.');
  const agent = new VoiceAgent({ dialogue, stt: new AmplitudeStt(), tts: new ToneTts(), vad: () => new EnergyVad(), mode: 'balanced', clock, tracer, ...options });
  const transport = new FileTransport(callerTrack(totalMs, segments), clock, { maxTailMs: 4000 });
  const hangups: Array<string | undefined> = [];
  const hangup = transport.hangup.bind(transport);
  transport.hangup = (reason) => {
    hangups.push(reason);
    hangup(reason);
  };
  const clears: number[] = [];
  const clear = transport.clear.bind(transport);
  transport.clear = () => {
    clears.push(clock.now());
    clear();
  };
  const session = agent.handle(transport);
  const pending = [...transportEvents];
  transport.settle = async () => {
    await session.settled();
    if (clock.now() >= audioFailsAtMs) throw new Error('socket reset');
    while (pending.length > 0 && clock.now() >= pending[0]!.atMs) transport.events$.next(pending.shift()!.event);
  };
  const events: AgentEvent[] = [];
  session.events$.subscribe((event) => events.push(event));
  const summary = await session.summary;
  const spans = exporter.getFinishedSpans();
  return { events, summary, session, dialogue, hangups, clears, spans, callSpan: spans.find((s) => s.name === 'call')! };
}

