import { describe, expect, it } from 'vitest';
import { VoiceAgent, type AgentEvent } from '../src/agent/index.js';
import { VirtualClock } from '../src/pipeline/index.js';
import { FileTransport } from '../src/transports/file/file-transport.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, LONG_REPLY, ToneTts, WORD_MS } from './agent-doubles.js';

class RecordingFileTransport extends FileTransport {
  clears: number[] = [];
  override clear(): void {
    this.clears.push((this as unknown as { positionMs(): number }).positionMs());
    super.clear();
  }
}

async function runCall(segments: { atMs: number; ms: number; amplitude: number }[], totalMs = 10_000) {
  const clock = new VirtualClock();
  const agent = new VoiceAgent({ dialogue: new FixedDialogue(), stt: new AmplitudeStt(), tts: new ToneTts(), vad: () => new EnergyVad(), mode: 'balanced', clock });
  const transport = new RecordingFileTransport(callerTrack(totalMs, segments), clock, { maxTailMs: 8000 });
  const session = agent.handle(transport);
  transport.settle = () => session.settled();
  const events: AgentEvent[] = [];
  session.events$.subscribe((event) => events.push(event));
  const summary = await session.summary;
  const track = await transport.agentTrack(16000);
  return { session, events, summary, transport, track };
}

const replyMs = LONG_REPLY.split(' ').length * WORD_MS;
const agentAudioMs = (track: Int16Array) => (track.reduce((n, s) => n + (s !== 0 ? 1 : 0), 0) * 1000) / 16000;

describe('barge-in', () => {
  it('caller words over the agent cancel it within 300 ms of speech start, clear the transport and truncate history', async () => {
    // "hello there" at 0.5 s; the reply starts about 1.6 s; "please stop talking" at 3 s.
    const { events, session, transport } = await runCall([
      { atMs: 500, ms: 600, amplitude: 5000 },
      { atMs: 3000, ms: 900, amplitude: 8000 },
    ]);
    const interrupted = events.find((e) => e.type === 'interrupted');
    expect(interrupted).toBeDefined();
    const firstClear = transport.clears.find((at) => at >= 3000)!;
    expect(firstClear).toBeGreaterThanOrEqual(3000);
    expect(firstClear - 3000).toBeLessThanOrEqual(300);
    const agentMessages = session.history.filter((m) => m.role === 'agent');
    const cut = agentMessages[0]!;
    expect(cut.interrupted).toBe(true);
    expect(LONG_REPLY.startsWith(cut.text)).toBe(true);
    const heardWords = cut.text.split(' ').length;
    expect(heardWords).toBeGreaterThanOrEqual(3);
    expect(heardWords).toBeLessThan(LONG_REPLY.split(' ').length - 3);
    expect(session.history.map((m) => m.text)).toContain('please stop talking');
  });

  it('a backchannel while the agent speaks does not interrupt it', async () => {
    const { events, session, track } = await runCall([
      { atMs: 500, ms: 600, amplitude: 5000 },
      { atMs: 3000, ms: 400, amplitude: 6000 },
    ]);
    expect(events.some((e) => e.type === 'interrupted')).toBe(false);
    const agentMessages = session.history.filter((m) => m.role === 'agent');
    expect(agentMessages[0]).toEqual({ role: 'agent', text: LONG_REPLY });
    expect(session.history.filter((m) => m.role === 'user').map((m) => m.text)).toEqual(['hello there']);
    expect(Math.abs(agentAudioMs(track) - replyMs)).toBeLessThan(40);
  });

  it('a noise burst pauses the agent, which then resumes where it stopped', async () => {
    const { events, session, track } = await runCall([
      { atMs: 500, ms: 600, amplitude: 5000 },
      { atMs: 3000, ms: 500, amplitude: 4000 },
    ]);
    const types = events.map((e) => e.type);
    expect(types).toContain('agent-paused');
    expect(types).toContain('agent-resumed');
    expect(types).not.toContain('interrupted');
    expect(session.history.filter((m) => m.role === 'agent')[0]).toEqual({ role: 'agent', text: LONG_REPLY });
    // Everything was heard once: what was cut at the pause is replayed, not skipped or doubled.
    expect(Math.abs(agentAudioMs(track) - replyMs)).toBeLessThan(40);
  });
});
