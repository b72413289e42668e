import { readFileSync } from 'node:fs';
import { lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDialogue } from '../../agents/index.js';
import { createEmbeddedAgentStack, type AgentMode, type EmbeddedAgentStack, type TurnReport } from '../../src/agent/index.js';
import { decodeCall, runFileCall } from '../../src/transports/file/file-call.js';

interface CallFixture {
  file: string;
  turns: string[];
}
const fixtures = JSON.parse(readFileSync(new URL('../fixtures/calls/manifest.json', import.meta.url), 'utf8')) as CallFixture[];
const agentOf = (file: string) => (file.startsWith('support') ? 'support' : 'receptionist');

/** Word edits (substitutions, insertions, deletions) turning `truth` into `heard`. */
function wordEdits(truth: string, heard: string): number {
  const a = truth.toLowerCase().split(/\s+/).filter(Boolean);
  const b = heard.toLowerCase().replace(/[^a-z0-9' ]/g, ' ').split(/\s+/).filter(Boolean);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/** Word error rate over a whole call: all edits over all true words. */
function callWer(truths: string[], heard: string[]): number {
  const edits = truths.reduce((sum, truth, i) => sum + wordEdits(truth, heard[i] ?? ''), 0);
  return edits / truths.reduce((sum, truth) => sum + truth.split(/\s+/).length, 0);
}

const normalise = (text: string) => text.toLowerCase().replace(/[^a-z0-9 ]/g, ' ').replace(/\s+/g, ' ').trim();

/** What the agent says to the true transcripts, from a fresh dialogue of the same agent. */
async function expectedReplies(agent: string, turns: string[]): Promise<string[]> {
  const dialogue = createDialogue(agent);
  const replies: string[] = [];
  const history: { role: 'user' | 'agent'; text: string }[] = [];
  for (const userText of turns) {
    const outputs = await lastValueFrom(dialogue.respond({ history, userText }).pipe(toArray()));
    const reply = outputs.map((o) => (o.type === 'text' ? o.delta : '')).join('');
    replies.push(reply);
    history.push({ role: 'user', text: userText }, { role: 'agent', text: reply });
  }
  return replies;
}

describe.each<AgentMode>(['balanced', 'low-latency'])('conversations on the fixture calls (%s)', (mode) => {
  let stack: EmbeddedAgentStack;
  beforeAll(async () => {
    stack = await createEmbeddedAgentStack({ mode });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  it.each(fixtures.map((f) => [f.file, f] as const))('%s: right turns, close transcripts, the scripted replies', async (_name, fixture) => {
    const caller = await decodeCall(readFileSync(new URL(`../fixtures/calls/${fixture.file}`, import.meta.url)));
    const agentName = agentOf(fixture.file);
    const { summary, events } = await runFileCall(stack.agentFor(createDialogue(agentName)), caller, { fast: true });
    const userTurns = summary.turns.filter((t: TurnReport) => t.userText !== '');
    // On a failure, the call as it went: each turn and every error event.
    const story = JSON.stringify({
      turns: summary.turns.map((t) => [t.turn, t.userText, t.agentText, t.interrupted]),
      errors: events.filter((e) => e.type === 'error' || e.type === 'assistant-unavailable'),
    });
    expect(userTurns.map((t) => t.turn), story).toEqual([1, 2, 3]);
    const wideband = caller.sampleRate >= 16000;
    const wer = callWer(fixture.turns, userTurns.map((t) => t.userText));
    // Measured (both modes alike): booking-16k 3 errors in 17 words (17.6 %), support-16k 0; booking-8k-ulaw
    // 4 in 17 (23.5 %; streaming pocketsphinx from a telephone cepstral mean loses words in the first turn).
    // Bounds at ~1.5 x the measured errors: 4 of 17 and 6 of 17.
    expect(wer).toBeLessThanOrEqual(wideband ? 4 / 17 : 6 / 17);
    // On narrowband audio the words heard may change the caller's intent; the replies then follow what was heard.
    const expected = await expectedReplies(agentName, wideband ? fixture.turns : userTurns.map((t) => t.userText));
    for (const [i, turn] of userTurns.entries()) {
      // The recorded caller talks on at fixed times, so a reply may be cut short: what was said is its beginning.
      expect(turn.agentText.length).toBeGreaterThan(0);
      expect(normalise(expected[i]!).startsWith(normalise(turn.agentText))).toBe(true);
      expect(turn.metrics.voiceToVoiceMs).toBeGreaterThan(0);
    }
    expect(summary.errors, story).toBe(0);
    // The last caller turn says goodbye; the agent answers it in full and ends the call.
    expect(userTurns.at(-1)!.interrupted).toBe(false);
    if (wideband) expect(summary.reason).not.toBe('caller hung up');
  }, 180_000);

});

describe('conversation with recognition on the service (/v1/asr per VAD segment)', () => {
  let stack: EmbeddedAgentStack;
  beforeAll(async () => {
    stack = await createEmbeddedAgentStack({ mode: 'balanced', stt: 'service' });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  it.each(['booking-16k.wav', 'booking-8k-ulaw.wav'])('%s: right turns and close transcripts', async (file) => {
    const fixture = fixtures.find((f) => f.file === file)!;
    const caller = await decodeCall(readFileSync(new URL(`../fixtures/calls/${fixture.file}`, import.meta.url)));
    const { summary } = await runFileCall(stack.agentFor(createDialogue('receptionist')), caller, { fast: true });
    const userTurns = summary.turns.filter((t) => t.userText !== '');
    expect(userTurns).toHaveLength(3);
    // Telephone audio is allowed a few more errors, as on the streaming path. It goes to the service as 8 kHz,
    // heard with the telephone band: on this synthetic call one word more (6 of 17), on the real human clips
    // fewer (docs/measurements.md).
    expect(callWer(fixture.turns, userTurns.map((t) => t.userText))).toBeLessThanOrEqual(caller.sampleRate >= 16000 ? 0.25 : 6 / 17);
    expect(summary.errors).toBe(0);
  }, 180_000);
});
