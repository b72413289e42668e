import { describe, expect, it } from 'vitest';
import { runCall } from '../support/agent-barge-in-call.js';

// On the wall clock (about 4 s), apart from agent-barge-in.test.ts so that mutation runs can leave it out.
describe('barge-in on the wall clock', () => {
  it('cancelling gives up the reply\'s synthesis at once, not only its playout (wall clock)', async () => {
    // The reply (4.8 s of audio) starts about 1.6 s and would take about 2.4 s to synthesise; barge-in at 2.2 s.
    const speechStartMs = 2200;
    const { eventAtMs, paced } = await runCall([{ atMs: 500, ms: 600, amplitude: 5000 }, { atMs: speechStartMs, ms: 700, amplitude: 8000 }], 4000, true);
    const cancelAtMs = eventAtMs.get('interrupted')!;
    expect(cancelAtMs).toBeDefined();
    // The cut reply's synthesis (the first) was abandoned when it was cancelled, not run to its end; the reply to
    // the new turn may be cut by the end of the call. (Same tick: the cancel is synchronous; 500 ms allowed for a loaded machine.)
    const cut = paced!.syntheses[0]!;
    expect(cut.abandoned).toBe(true);
    expect(Math.abs(cut.endedAtMs! - cancelAtMs)).toBeLessThan(500);
  }, 20_000);

});
