import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedAgentStack, type AgentEvent, type AgentMode, type EmbeddedAgentStack } from '../../src/agent/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { createDialogue } from '../../agents/index.js';
import { speechFixtures } from '../support/engines-fixtures.js';

/** Records the call position of every clear (the agent's audio dropped from the transport: the pause). */
class RecordingFileTransport extends FileTransport {
  clears: number[] = [];
  override clear(): void {
    this.clears.push((this as unknown as { positionMs(): number }).positionMs());
    super.clear();
  }
}

// Barge-in on the real engines: Silero VAD, pocketsphinx streaming recognition and flite synthesis through the
// embedded service. The call runs on a virtual clock: times are call time (audio position), engine work takes
// none, so the figures are what VAD and recognition need to hear, not what this machine's load adds.
describe('barge-in on the real engines', () => {
  let stack: EmbeddedAgentStack;
  beforeAll(async () => {
    stack = await createEmbeddedAgentStack({ mode: 'balanced' });
  }, 120_000);
  afterAll(async () => stack?.close());

  /**
   * The receptionist greets at once ("Hello, The Harbour Kitchen. How can I help?", about 3 s of flite); the
   * caller starts "please transfer me to a human agent" 0.8 s in. Returns the pause and cancel times.
   */
  async function talkOverGreeting(mode: AgentMode) {
    const request = speechFixtures().find((f) => f.text === 'please transfer me to a human agent')!;
    const callerAtMs = 800;
    const samples = new Int16Array(16 * 12_000);
    samples.set(request.pcm, 16 * callerAtMs);
    const clock = new VirtualClock();
    const transport = new RecordingFileTransport({ samples, sampleRate: 16000 }, clock, { maxTailMs: 8000 });
    const session = stack.agentFor(createDialogue('receptionist'), { mode }).handle(transport, { clock });
    transport.settle = () => session.settled();
    const at = new Map<string, number>();
    let speechStartMs = -1;
    let speechEndMs = -1;
    session.events$.subscribe((event: AgentEvent) => {
      if (event.type === 'user-started-speaking' && speechStartMs < 0) speechStartMs = event.atMs;
      if (event.type === 'user-stopped-speaking' && speechEndMs < 0) speechEndMs = event.atMs;
      if (!at.has(event.type)) at.set(event.type, clock.now());
    });
    const summary = await session.summary;
    expect(speechStartMs).toBeGreaterThanOrEqual(callerAtMs);
    // Pause time: the caller's speech start (as the VAD placed it) -> the greeting is cleared from the transport.
    const pauseMs = transport.clears.find((position) => position >= speechStartMs)! - speechStartMs;
    // Cancel time: speech start -> the greeting is given up ('interrupted', history truncated).
    const cancelMs = at.get('interrupted')! - speechStartMs;

    const greeting = session.history.find((m) => m.role === 'agent')!;
    expect(greeting.interrupted).toBe(true);
    expect('Hello, The Harbour Kitchen. How can I help?'.startsWith(greeting.text)).toBe(true);
    const answered = summary.turns.find((t) => t.userText !== '')!;
    expect(answered.userText).toContain('human agent');
    expect(answered.agentText).toMatch(/^Of course\. A member of our staff/);
    return { pauseMs, cancelMs, speechMs: speechEndMs - speechStartMs };
  }

  it('low-latency: pauses the greeting after the minimum speech, cancels it at the first interim with words', async () => {
    const { pauseMs, cancelMs } = await talkOverGreeting('low-latency');
    // Measured: pause 236 ms, cancel 236 ms after speech start (an interim had words before the pause, so the
    // cancel comes with it). Bounds 1.5x: 354 ms.
    expect(pauseMs).toBeGreaterThan(0);
    expect(pauseMs).toBeLessThanOrEqual(354);
    expect(cancelMs).toBeGreaterThanOrEqual(pauseMs);
    expect(cancelMs).toBeLessThanOrEqual(354);
  }, 120_000);

  it('balanced: pauses as fast, but cancels only at the final transcript (no interims in this mode)', async () => {
    const { pauseMs, cancelMs, speechMs } = await talkOverGreeting('balanced');
    // Measured: pause 236 ms (bound 1.5x: 354 ms); cancel 2896 ms after speech start, i.e. 528 ms after the
    // caller's 2368 ms of speech: the 500 ms endpoint and the final transcript (bound: 1.5x those 528 ms).
    expect(pauseMs).toBeGreaterThan(0);
    expect(pauseMs).toBeLessThanOrEqual(354);
    expect(cancelMs).toBeGreaterThan(speechMs + 500);
    expect(cancelMs).toBeLessThanOrEqual(speechMs + 792);
  }, 120_000);
});
