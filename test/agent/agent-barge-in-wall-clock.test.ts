import { describe, expect, it } from 'vitest';
import { runCall } from '../support/agent-barge-in-call.js';

// On the wall clock (about 4 s), apart from agent-barge-in.test.ts so that mutation runs can leave it out. It checks
// order, not spans: what it asserts holds however loaded the machine is.
describe('barge-in on the wall clock', () => {
  it('cancelling gives up the reply\'s synthesis at once, not only its playout (wall clock)', async () => {
    // The reply (4.8 s of audio) starts about 1.6 s and would take about 2.4 s to synthesise; barge-in at 2.2 s.
    const { synthesisFramesAtEvent, paced } = await runCall([{ atMs: 500, ms: 600, amplitude: 5000 }, { atMs: 2200, ms: 700, amplitude: 8000 }], 4000, true);
    const framesAtCancel = synthesisFramesAtEvent.get('interrupted');
    expect(framesAtCancel).toBeDefined();
    // The cut reply's synthesis (the first) was abandoned when it was cancelled, in the same tick: it made no frame
    // after the interruption, and had made some before it (it was under way, not yet finished).
    const cut = paced!.syntheses[0]!;
    expect(cut.abandoned).toBe(true);
    expect(framesAtCancel![0]).toBeGreaterThan(0);
    expect(cut.frames).toBe(framesAtCancel![0]);
  }, 20_000);
});
