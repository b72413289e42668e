import { describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../src/audio/index.js';
import { VoiceAgent, type AgentEvent } from '../../src/agent/index.js';
import { VirtualClock, type Clock } from '../../src/pipeline/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, LONG_REPLY, ToneTts, WORD_MS } from '../support/agent-doubles.js';
import { agentAudioMs, replyMs, runCall } from '../support/agent-barge-in-call.js';

describe('barge-in', () => {
  it('caller words over the agent pause it within 300 ms of speech start, then cancel the reply, clear the transport and truncate history', async () => {
    // "hello there" at 0.5 s; the reply starts about 1.6 s and is synthesised until about 4 s; "please stop talking" at 3 s.
    const speechStartMs = 3000;
    const { events, eventAtMs, session, transport, track } = await runCall([
      { atMs: 500, ms: 600, amplitude: 5000 },
      { atMs: speechStartMs, ms: 900, amplitude: 8000 },
    ]);
    // Pause time: caller speech start -> the agent's audio is cleared from the transport (minSpeechMs 200;
    // measured 200 ms).
    const pauseAtMs = transport.clears.find((at) => at >= speechStartMs)!;
    expect(pauseAtMs - speechStartMs).toBeGreaterThanOrEqual(200);
    expect(pauseAtMs - speechStartMs).toBeLessThanOrEqual(300);
    expect(eventAtMs.get('agent-paused')).toBe(pauseAtMs);
    // Cancel time: caller speech start -> the reply is given up. The interim with words came before the pause, so
    // the cancel comes with the pause: measured 200 ms (it was 1420 ms, at the final transcript, before the fix).
    const cancelAtMs = eventAtMs.get('interrupted')!;
    expect(cancelAtMs - speechStartMs).toBeGreaterThanOrEqual(pauseAtMs - speechStartMs);
    expect(cancelAtMs - speechStartMs).toBeLessThanOrEqual(300);
    // Nothing of the cut reply plays after the pause: the next agent audio is the reply to the new turn.
    const afterPause = track.subarray((pauseAtMs * 16000) / 1000, ((cancelAtMs + 300) * 16000) / 1000);
    expect(afterPause.every((s) => s === 0)).toBe(true);
    const agentMessages = session.history.filter((m) => m.role === 'agent');
    const cut = agentMessages[0]!;
    expect(cut.interrupted).toBe(true);
    expect(events.filter((e) => e.type === 'interrupted')).toEqual([{ type: 'interrupted', turn: 1, playedText: cut.text }]);
    expect(LONG_REPLY.startsWith(cut.text)).toBe(true);
    const heardWords = cut.text.split(' ').length;
    expect(heardWords).toBeGreaterThanOrEqual(3);
    expect(heardWords).toBeLessThan(LONG_REPLY.split(' ').length - 3);
    expect(session.history.map((m) => m.text)).toContain('please stop talking');
  });

  it('records the cut reply as interrupted in the events, its turn report and the call summary; the next one as whole', async () => {
    const { events, summary } = await runCall([
      { atMs: 500, ms: 600, amplitude: 5000 },
      { atMs: 3000, ms: 900, amplitude: 8000 },
    ]);
    const stopped = events.filter((e) => e.type === 'agent-stopped-speaking');
    expect(stopped).toEqual([
      { type: 'agent-stopped-speaking', turn: 1, interrupted: true },
      { type: 'agent-stopped-speaking', turn: 2, interrupted: false },
    ]);
    expect(summary.turns.map((t) => [t.turn, t.userText, t.interrupted, t.metrics.interrupted])).toEqual([
      [1, 'hello there', true, true],
      [2, 'please stop talking', false, false],
    ]);
    expect(LONG_REPLY.startsWith(summary.turns[0]!.agentText)).toBe(true);
    expect(summary.turns[0]!.agentText.length).toBeLessThan(LONG_REPLY.length);
    expect(summary.interruptions).toBe(1);
    expect(summary.errors).toBe(0);
    expect(summary.reason).toBe('caller hung up');
    expect(events.filter((e) => e.type === 'interrupted')).toHaveLength(1);
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

/**
 * A phone line whose carrier echoes each piece of agent audio `echoLagMs` after it finished playing (the
 * carrier plays pieces one after another, as handed over), as a media stream's mark echoes do.
 */
class MarkEchoTransport extends FileTransport {
  readonly echoedAtClear: number[] = [];
  private pieces: { endMs: number; ms: number }[] = [];
  constructor(
    track: { samples: Int16Array; sampleRate: number },
    private readonly callClock: Clock,
    private readonly echoLagMs: number,
  ) {
    super(track, callClock, { maxTailMs: 8000 });
  }
  override play(frame: AudioFrame): void {
    const ms = (frame.samples.length * 1000) / frame.sampleRate;
    const startMs = Math.max(this.callClock.now(), this.pieces.at(-1)?.endMs ?? 0);
    this.pieces.push({ endMs: startMs + ms, ms });
    super.play(frame);
  }
  override clear(): void {
    this.echoedAtClear.push(this.playedMs());
    this.pieces = [];
    super.clear();
  }
  playedMs(): number {
    return this.pieces.filter((p) => p.endMs + this.echoLagMs <= this.callClock.now()).reduce((n, p) => n + p.ms, 0);
  }
  pendingMs(): number {
    return this.pieces.reduce((n, p) => n + p.ms, 0) - this.playedMs();
  }
}

describe('barge-in on a phone line with mark echoes', () => {
  it('truncates the history at the last echoed mark, not at the pipeline clock', async () => {
    const clock = new VirtualClock();
    const agent = new VoiceAgent({ dialogue: new FixedDialogue(), stt: new AmplitudeStt(), tts: new ToneTts(), vad: () => new EnergyVad(), mode: 'balanced', clock });
    const transport = new MarkEchoTransport(callerTrack(10_000, [{ atMs: 500, ms: 600, amplitude: 5000 }, { atMs: 3000, ms: 900, amplitude: 8000 }]), clock, 700);
    const session = agent.handle(transport);
    transport.settle = () => session.settled();
    const events: AgentEvent[] = [];
    session.events$.subscribe((event) => events.push(event));
    await session.summary;
    const cut = session.history.find((m) => m.role === 'agent')!;
    expect(cut.interrupted).toBe(true);
    // What the carrier had confirmed when the agent was cut off: the caller heard the words that ended before it.
    const echoedMs = transport.echoedAtClear[0]!;
    expect(echoedMs).toBeGreaterThan(0);
    const heardWords = Math.floor(echoedMs / WORD_MS);
    expect(cut.text).toBe(LONG_REPLY.split(' ').slice(0, heardWords).join(' '));
    // The pipeline's clock alone would have credited the caller with more (the 700 ms still in flight).
    const byClock = await runCall([{ atMs: 500, ms: 600, amplitude: 5000 }, { atMs: 3000, ms: 900, amplitude: 8000 }]);
    const clockWords = byClock.session.history.find((m) => m.role === 'agent')!.text.split(' ').length;
    expect(clockWords - heardWords).toBeGreaterThanOrEqual(2);
  });
});
