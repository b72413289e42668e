import { concatMap, map, Observable, of, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { DialogueInput, DialogueOutput, TranscriptEvent, WorkOptions } from '../../src/agent/index.js';
import type { Expectation } from '../../src/speech/index.js';
import type { AudioFrame } from '../../src/audio/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { AmplitudeStt, FixedDialogue } from '../support/agent-doubles.js';
import { sessionCall as call } from '../support/agent-session-call.js';

// The caller's side of a low-latency call on the virtual clock: a reply started on a stable interim and kept
// or thrown away by the final transcript, what the interim tells the endpoint, and an utterance the goodbye cuts.

/**
 * Hears each utterance as scripted: its interim (after 96 ms of voice) and its final transcript, the final
 * `finalAfterMs` after the endpoint (a slow recognizer; needs the call's `clock`).
 */
class ScriptedStt extends AmplitudeStt {
  constructor(
    private readonly script: Array<{ interim: string; final: string; finalAfterMs?: number; expected?: boolean }>,
    private readonly clock?: VirtualClock,
  ) {
    super();
  }
  override transcribe(utterance$: Observable<AudioFrame>, work?: WorkOptions): Observable<TranscriptEvent> {
    const said = this.script[this.utterances]!;
    const late = (e: TranscriptEvent) => (e.final && said.finalAfterMs ? timer(said.finalAfterMs, this.clock!.scheduler).pipe(map(() => e)) : of(e));
    return super.transcribe(utterance$, work).pipe(
      map((e) => ({ ...e, text: e.final ? said.final : said.interim, ...(e.final && said.expected !== undefined ? { expected: said.expected } : {}) })),
      concatMap(late),
    );
  }
}

/** Answers "you said …"; records each request, whether it was speculative, and when (call time) its fate came. */
function recordingDialogue(clock: VirtualClock) {
  const requests: Array<{ userText: string; speculative: boolean; expected?: boolean; history: DialogueInput['history']; fate?: { kept: boolean; atMs: number } }> = [];
  const dialogue = {
    name: 'recording',
    greeting: () => 'Hi.',
    respond(input: DialogueInput): Observable<DialogueOutput> {
      const request: (typeof requests)[number] = { userText: input.userText, speculative: input.speculative !== undefined, expected: input.expected, history: input.history };
      requests.push(request);
      void input.speculative?.kept().then((kept) => (request.fate = { kept, atMs: clock.now() }));
      return of<DialogueOutput>({ type: 'text', delta: `you said ${input.userText}.` });
    },
  };
  return { dialogue, requests };
}

const speech = { atMs: 1500, ms: 600, amplitude: 5000 }; // voice until 2100 ms; the greeting "Hi." is over by then

describe('a reply started on the interim', () => {
  it('is kept and played when the final says the same', async () => {
    const clock = new VirtualClock();
    const { dialogue, requests } = recordingDialogue(clock);
    const stt = new ScriptedStt([{ interim: 'book a table', final: 'book a table' }]);
    const { summary } = await call({ mode: 'low-latency', clock, dialogue, stt }, [], [speech]);
    expect(requests.map((r) => [r.userText, r.speculative, r.fate?.kept])).toEqual([['book a table', true, true]]);
    expect(summary.turns[1]).toMatchObject({ userText: 'book a table', agentText: 'you said book a table.', metrics: { preemptive: true } });
  });

  it('is thrown away when the final was heard outside the expectations, and the final is answered saying so', async () => {
    const clock = new VirtualClock();
    const { dialogue, requests } = recordingDialogue(clock);
    const stt = new ScriptedStt([
      { interim: 'it go', final: 'it go', expected: false },
      { interim: 'stop', final: 'stop', expected: true },
    ]);
    const { summary } = await call({ mode: 'low-latency', clock, dialogue, stt }, [], [speech, { ...speech, atMs: 4000 }]);
    expect(requests.map((r) => [r.userText, r.speculative, r.expected, r.fate?.kept])).toEqual([
      ['it go', true, undefined, false],
      ['it go', false, false, undefined],
      ['stop', true, undefined, true],
    ]);
    expect(summary.turns[1]!.metrics.preemptive).toBeUndefined();
    expect(summary.turns[2]!.metrics.preemptive).toBe(true);
    // The history the dialogue replays keeps how each turn was heard.
    expect(requests[2]!.history.filter((m) => m.role === 'user')).toEqual([{ role: 'user', text: 'it go', expected: false }]);
  });

  it('is thrown away when the final differs, and the final is answered instead', async () => {
    const clock = new VirtualClock();
    const { dialogue, requests } = recordingDialogue(clock);
    const stt = new ScriptedStt([{ interim: 'book a table', final: 'book a table for two' }]);
    const { summary, events } = await call({ mode: 'low-latency', clock, dialogue, stt }, [], [speech]);
    expect(requests.map((r) => [r.userText, r.speculative, r.fate?.kept])).toEqual([
      ['book a table', true, false],
      ['book a table for two', false, undefined],
    ]);
    expect(summary.turns.map((t) => t.agentText)).toEqual(['Hi.', 'you said book a table for two.']);
    expect(summary.turns[1]!.metrics.preemptive).toBeUndefined();
    // Only the final's reply was heard.
    expect(events.filter((e) => e.type === 'agent-started-speaking')).toHaveLength(2);
  });

  it('is thrown away at the final when the final is empty: no turn, the agent stays silent', async () => {
    const clock = new VirtualClock();
    const { dialogue, requests } = recordingDialogue(clock);
    const stt = new ScriptedStt([{ interim: 'book a table', final: '' }]);
    const { summary } = await call({ mode: 'low-latency', clock, dialogue, stt }, [], [speech], 6000);
    expect(requests).toHaveLength(1);
    // Thrown away when the final came (voice ends at 2100 ms, 200 ms endpoint), not when the call ended (6000 ms).
    expect(requests[0]!.fate!.kept).toBe(false);
    expect(requests[0]!.fate!.atMs).toBeLessThan(2600);
    expect(summary.turns.map((t) => t.agentText)).toEqual(['Hi.']);
  });

  it("a reply started for the caller's next utterance never answers the one before", async () => {
    // "book a table" (1500–2100 ms, final 1000 ms late), then "for two" (2400–2700 ms, final 2500 ms late):
    // the second utterance's reply starts before the first one's final comes.
    const clock = new VirtualClock();
    const { dialogue, requests } = recordingDialogue(clock);
    const stt = new ScriptedStt(
      [
        { interim: 'book a table', final: 'book a table', finalAfterMs: 1000 },
        { interim: 'for two', final: 'for two', finalAfterMs: 2500 },
      ],
      clock,
    );
    const next = { atMs: 2400, ms: 300, amplitude: 5000 };
    const { summary } = await call({ mode: 'low-latency', clock, dialogue, stt }, [], [speech, next], 8000);
    expect(summary.turns.map((t) => [t.userText, t.agentText])).toEqual([
      ['', 'Hi.'],
      ['book a table', 'you said book a table.'],
      ['for two', 'you said for two.'],
    ]);
    expect(requests.map((r) => [r.userText, r.speculative, r.fate?.kept])).toEqual([
      ['book a table', true, false],
      ['for two', true, false],
      ['book a table', false, undefined],
      ['for two', false, undefined],
    ]);
  });
});

describe('what the caller has said so far sets the endpoint', () => {
  const fourDigits: Expectation[] = [{ kind: 'digits', maxLength: 4 }];
  const endpointingMs = async (interim: string) => {
    const dialogue = new FixedDialogue('thanks.', 'Your code please.');
    Object.assign(dialogue, { expectations: () => fourDigits });
    const stt = new ScriptedStt([{ interim, final: interim }]);
    const { summary } = await call({ mode: 'low-latency', dialogue, stt }, [], [speech]);
    return summary.turns[1]!.metrics.endpointingMs!;
  };

  it('the mode endpoint once the interim holds every expected digit, the digit pause before', async () => {
    // Silence is measured in 32 ms detector frames: 200 ms → 224, 1500 ms (digitPauseMs) → 1504.
    expect(await endpointingMs('4 1 9 2')).toBeLessThan(300);
    expect(await endpointingMs('4 1 9')).toBeGreaterThanOrEqual(1500);
  });
});

describe('the goodbye', () => {
  it('stops hearing what the caller is saying when the call reaches its maximum length', async () => {
    // Interruptions off: the goodbye (from 1800 ms) plays to its end over the caller's voice (until 2100 ms).
    const { summary, events } = await call({ maxCallMs: 1800, interruption: { enabled: false } }, [], [speech], 6000);
    expect(summary.reason).toBe('agent ended the call');
    expect(summary.turns.map((t) => t.userText)).toEqual(['', '']);
    expect(summary.turns[1]!.agentText).toBe('Thank you for calling. Goodbye.');
    expect(events.filter((e) => e.type === 'transcript' && e.final)).toEqual([]);
  });

  it('ends the call when the caller talks over the goodbye', async () => {
    // The goodbye starts at 1800 ms over the caller's voice (until 2100 ms), which cuts it.
    const { summary, hangups, events } = await call({ maxCallMs: 1800 }, [], [speech], 6000);
    expect(events).toContainEqual({ type: 'agent-stopped-speaking', turn: 1, interrupted: true });
    expect(summary.reason).toBe('agent ended the call');
    expect(hangups).toEqual(['agent ended the call']);
    expect(summary.turns.map((t) => t.userText)).toEqual(['', '']);
  });
});

describe('a backchannel over the agent', () => {
  it('does not start the silence timeout while the agent still speaks', async () => {
    // "okay" (500–800 ms) over a 3 s greeting; the caller then stays silent: the one allowed silence (1 s)
    // counts from the end of the greeting, so the greeting is heard whole and the goodbye follows it.
    const long = new FixedDialogue('fine.', 'one two three four five six seven eight nine ten.');
    const okay = { atMs: 500, ms: 300, amplitude: 6000 };
    const { summary } = await call({ dialogue: long, userSilenceTimeoutMs: 1000, maxReprompts: 0 }, [], [okay], 6000);
    expect(summary.turns.map((t) => [t.agentText, t.interrupted])).toEqual([
      ['one two three four five six seven eight nine ten.', false],
      ['Thank you for calling. Goodbye.', false],
    ]);
  });
});
