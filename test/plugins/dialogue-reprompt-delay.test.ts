import { describe, expect, it } from 'vitest';
import { parseScript, ScriptedDialogue } from '../../plugins/index.js';
import type { AgentEvent } from '../../src/agent/index.js';
import { virtualCall } from '../support/agent-virtual-call.js';

const script = (extra: string) =>
  parseScript(`name: quiet
greeting: Hello.
reprompt: Still there?
${extra}
start: main
intents: { hi: { keywords: [hi] } }
states: { main: { on: [{ intent: hi, reply: Hi. }] } }
`);

/** Time between the starts of successive agent lines (each short line plus the caller's silence after it). */
function gaps(events: AgentEvent[]): number[] {
  const starts = events.flatMap((e) => (e.type === 'agent-started-speaking' ? [e.atMs] : []));
  return starts.slice(1).map((at, i) => at - starts[i]!);
}

describe("a scripted dialogue's reprompt delay", () => {
  it('is the agent default (8 s of caller silence) unless the script sets repromptAfterMs', async () => {
    const plain = await virtualCall({ dialogue: new ScriptedDialogue(script('')), maxReprompts: 1 }, [], 1000, { minTailMs: 30_000 });
    const quick = await virtualCall({ dialogue: new ScriptedDialogue(script('repromptAfterMs: 2000')), maxReprompts: 1 }, [], 1000, { minTailMs: 30_000 });
    expect(plain.summary.turns.map((t) => t.agentText)).toEqual(['Hello.', 'Still there?', 'Thank you for calling. Goodbye.']);
    expect(quick.summary.turns.map((t) => t.agentText)).toEqual(['Hello.', 'Still there?', 'Thank you for calling. Goodbye.']);
    const slow = gaps(plain.events);
    const fast = gaps(quick.events);
    expect(slow).toHaveLength(2);
    expect(fast).toHaveLength(2);
    for (const gap of slow) expect(gap).toBeGreaterThanOrEqual(8000);
    // The same lines, 6 s less silence after each.
    for (const [i, gap] of fast.entries()) {
      expect(gap).toBeGreaterThanOrEqual(2000);
      expect(slow[i]! - gap).toBe(6000);
    }
  });

  it('rejects a delay too short to let a caller answer', () => {
    expect(() => script('repromptAfterMs: 100')).toThrow(/repromptAfterMs.*500/);
  });
});
