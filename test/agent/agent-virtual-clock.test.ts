import { describe, expect, it } from 'vitest';
import { failureDefaults, type AgentEvent } from '../../src/agent/index.js';
import { FixedDialogue } from '../support/agent-doubles.js';
import { virtualCall as call } from '../support/agent-virtual-call.js';

describe('a call on a virtual clock', () => {
  it('is deterministic: same turns, same events, same agent audio sample for sample', async () => {
    const first = await call();
    const second = await call();
    const strip = (events: AgentEvent[]) => events.filter((e) => e.type !== 'turn-metrics' && e.type !== 'hangup');
    expect(strip(second.events)).toEqual(strip(first.events));
    expect(second.track).toEqual(first.track);
    expect(first.summary.turns.map((t) => [t.turn, t.userText, t.agentText])).toEqual([
      [0, '', 'Hi there.'],
      [1, 'hello there', 'you said hello there.'],
      [2, 'please stop talking', 'you said please stop talking.'],
    ]);
  });

  it('places the reply on the call timeline one endpoint after the caller stops (engines take no virtual time)', async () => {
    const { events } = await call({ greet: false });
    const started = events.find((e) => e.type === 'agent-started-speaking');
    const stopped = events.find((e) => e.type === 'user-stopped-speaking');
    expect(stopped && started).toBeTruthy();
    // Caller speech ends at 1100 ms; the balanced endpoint is 500 ms of silence, counted in 32 ms VAD frames, and
    // the reply starts on the driver's next 20 ms tick: the same instant on every run.
    expect((started as { atMs: number }).atMs).toBe(1640);
  });

  it('reprompts a silent caller and hangs up after the last reprompt', async () => {
    const { summary, events } = await call({ greet: true, userSilenceTimeoutMs: 3000, maxReprompts: 2 }, [], 1000, { minTailMs: 30_000 });
    const spoken = summary.turns.map((t) => t.agentText);
    expect(spoken).toEqual(['Hi there.', 'Are you still there?', 'Are you still there?', 'Thank you for calling. Goodbye.']);
    expect(events.at(-1)?.type).toBe('hangup');
    expect(summary.reason).toBe('agent ended the call');
  });

  it('ends the call at the maximum call length with the goodbye line', async () => {
    const { summary } = await call({ greet: false, maxCallMs: 2500, userSilenceTimeoutMs: 60_000 }, [{ atMs: 500, ms: 600, amplitude: 5000 }], 6000);
    expect(summary.turns.at(-1)?.agentText).toBe('Thank you for calling. Goodbye.');
    // Cut at 2500 ms, then the goodbye line plays to its end: the same length on every run.
    expect(summary.durationMs).toBe(4020);
  });

  it('a failing dialogue in one turn speaks the fallback line and the call goes on', async () => {
    let calls = 0;
    const dialogue = new FixedDialogue((input) => {
      calls++;
      if (calls === 1) throw new Error('dialogue backend down');
      return `you said ${input.userText}.`;
    });
    const { summary, events } = await call({ dialogue, greet: false });
    expect(events.some((e) => e.type === 'error' && e.stage === 'dialogue')).toBe(true);
    // The fallback line answers the failed turn (the caller may cut it short); the next turn works again.
    expect(summary.turns[0]!.userText).toBe('hello there');
    expect(failureDefaults.lines.thinking.startsWith(summary.turns[0]!.agentText)).toBe(true);
    expect(events.find((e) => e.type === 'assistant-unavailable')).toMatchObject({ stage: 'thinking', failures: 1, hangup: false });
    expect(summary.turns[0]!.agentText.length).toBeGreaterThan(10);
    expect(summary.turns[1]).toMatchObject({ turn: 2, userText: 'please stop talking', agentText: 'you said please stop talking.' });
    expect(summary.errors).toBe(1);
  });
});
