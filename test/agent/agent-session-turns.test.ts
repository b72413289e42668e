import { SpanStatusCode } from '@opentelemetry/api';
import { from, map, Observable, of, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { DialogueInput, DialogueOutput, TextToSpeech, TranscriptEvent, WorkOptions } from '../../src/agent/index.js';
import type { AudioFrame } from '../../src/audio/index.js';
import { failureDefaults } from '../../src/agent/index.js';
import { spanAttributes } from '../../src/tracing/index.js';
import { AmplitudeStt, FixedDialogue, ToneTts } from '../support/agent-doubles.js';
import { sessionCall as call } from '../support/agent-session-call.js';

// Turns through a whole call on the virtual clock: what each turn reports, failures and their fallbacks,
// replies replaced or cut by the end of the call, and the spans of each turn.

const hello = { atMs: 1500, ms: 600, amplitude: 5000 }; // "hello there"
const okay = { atMs: 4000, ms: 600, amplitude: 6000 }; // "okay"
const failingTts: TextToSpeech = { speak: () => throwError(() => new Error('voice down')) };

describe('turn reports and events', () => {
  it('each turn: user-started-speaking, a prepared speech engine, trimmed texts and a turn-metrics event', async () => {
    const tts = new ToneTts();
    const { events, summary } = await call({ tts, dialogue: new FixedDialogue('  fine, thanks.  ', '  Hi there.  ') }, [], [hello]);
    // Speech starts at 1500 ms; the detector's 32 ms frames put its first speech frame at 1472 ms.
    expect(events.filter((e) => e.type === 'user-started-speaking')).toEqual([{ type: 'user-started-speaking', atMs: 1472 }]);
    expect(tts.prepared).toBe(1);
    expect(summary.turns.map((t) => [t.userText, t.agentText])).toEqual([
      ['', 'Hi there.'],
      ['hello there', 'fine, thanks.'],
    ]);
    expect(events.filter((e) => e.type === 'turn-metrics').map((e) => (e as { report: { agentText: string } }).report.agentText)).toEqual(['Hi there.', 'fine, thanks.']);
  });

  it('a dialogue without a greeting starts silent', async () => {
    const silent = { name: 'plain', respond: (input: DialogueInput) => of<DialogueOutput>({ type: 'text', delta: `you said ${input.userText}.` }) };
    const { summary } = await call({ dialogue: silent }, [], [hello]);
    expect(summary.turns.map((t) => t.userText)).toEqual(['hello there']);
  });

  it('the greeting and keypad turns have turn spans of their own kind under the call; the reply spans hang under them', async () => {
    const { spans, callSpan } = await call({}, [], [hello]);
    const turns = spans.filter((s) => s.name === 'turn');
    const greeting = turns.find((s) => s.attributes[spanAttributes.turnKind] === 'greeting')!;
    expect(greeting.parentSpanContext?.spanId).toBe(callSpan.spanContext().spanId);
    const byParent = (name: string) => spans.filter((s) => s.name === name).map((s) => s.parentSpanContext?.spanId);
    expect(byParent('dialogue')).toContain(greeting.spanContext().spanId);
    expect(byParent('tts')).toContain(greeting.spanContext().spanId);
    const spoken = turns.find((s) => s !== greeting)!;
    expect(byParent('dialogue')).toContain(spoken.spanContext().spanId);
  });
});

describe('caller turns', () => {
  it('transcripts are trimmed, and a final of only spaces is no turn', async () => {
    class PaddedStt extends AmplitudeStt {
      override transcribe(utterance$: Observable<AudioFrame>, work?: WorkOptions): Observable<TranscriptEvent> {
        return super.transcribe(utterance$, work).pipe(map((e) => ({ ...e, text: `  ${e.text} ` })));
      }
    }
    const noise = { atMs: 4500, ms: 600, amplitude: 4000 }; // heard as '', after the reply to "hello there" ended
    const { summary } = await call({ stt: new PaddedStt() }, [], [hello, noise], 7000);
    expect(summary.turns.map((t) => t.userText)).toEqual(['', 'hello there']);
  });

  it('after a discarded utterance the silence timer starts again', async () => {
    const noise = { atMs: 1500, ms: 600, amplitude: 4000 }; // heard as '': no turn
    const { summary } = await call({ userSilenceTimeoutMs: 2000 }, [], [noise], 6000);
    expect(summary.turns.map((t) => t.agentText)).toEqual(['Hi there.', 'Are you still there?']);
  });

  it('works with a speech engine that has no prepare()', async () => {
    const tone = new ToneTts();
    const { summary } = await call({ tts: { speak: (request) => tone.speak(request) } }, [], [hello]);
    expect(summary.turns.map((t) => t.userText)).toEqual(['', 'hello there']);
  });
});

describe('failures', () => {
  it('a failing recognizer: an asr error, the listening line, and the call goes on', async () => {
    class BrokenStt extends AmplitudeStt {
      override transcribe(): Observable<TranscriptEvent> {
        return throwError(() => new Error('decoder crashed'));
      }
    }
    const { events, summary } = await call({ stt: new BrokenStt() }, [], [hello]);
    expect(events.filter((e) => e.type === 'error')).toEqual([{ type: 'error', stage: 'asr', message: 'asr failed: decoder crashed' }]);
    expect(events.find((e) => e.type === 'assistant-unavailable')).toMatchObject({ stage: 'listening', failures: 1, hangup: false });
    expect(summary.turns.at(-1)!.agentText).toBe(failureDefaults.lines.listening);
    expect(summary.reason).toBe('caller hung up');
  });

  it('a successful turn resets the count of failures in a row', async () => {
    const dialogue = new FixedDialogue('fine.', 'Hi there.');
    dialogue.respond = (input) => (input.userText === 'okay' ? of<DialogueOutput>({ type: 'text', delta: 'fine.' }) : throwError(() => new Error('model down')));
    const { events } = await call({ dialogue, failures: { lines: { thinking: 'Sorry.' } } }, [], [hello, okay, { atMs: 6500, ms: 600, amplitude: 5000 }], 9000);
    expect(events.filter((e) => e.type === 'assistant-unavailable').map((e) => (e as { failures: number }).failures)).toEqual([1, 1]);
  });

  it('when speech fails, the fallback line failing too is reported once, the turn span marked, and the call goes on', async () => {
    const { events, summary, spans } = await call({ tts: failingTts });
    expect(events.filter((e) => e.type === 'assistant-unavailable')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'error').map((e) => (e as { stage: string }).stage)).toEqual(['tts', 'tts']);
    expect(summary.errors).toBe(2);
    expect(summary.reason).toBe('caller hung up');
    const greeting = spans.find((s) => s.name === 'turn' && s.attributes[spanAttributes.turnKind] === 'greeting')!;
    expect(greeting.status).toEqual({ code: SpanStatusCode.ERROR, message: 'tts failed: voice down' });
  });

  it('when the hang-up line fails as well, the agent still ends the call', async () => {
    const { summary, hangups, events } = await call({ tts: failingTts, failures: { hangupAfter: 1 } });
    expect(events.find((e) => e.type === 'assistant-unavailable')).toMatchObject({ hangup: true });
    expect(summary.reason).toBe('agent ended the call');
    expect(hangups).toEqual(['agent ended the call']);
  });

  it('caller audio failing ends the call as a transport failure', async () => {
    const { events, summary } = await call({}, [], [], 6000, 1000);
    expect(events.filter((e) => e.type === 'error')).toEqual([{ type: 'error', stage: 'transport', message: 'transport failed: socket reset' }]);
    expect(summary.reason).toBe('caller audio failed');
  });
});

describe('replies replaced or cut', () => {
  it('a reply replacing one that is playing clears the transport and reports what was heard of the first', async () => {
    const dialogue = new FixedDialogue('fine.', 'one two three four five six seven eight.');
    Object.assign(dialogue, { answeredBy: () => from<DialogueOutput[]>([{ type: 'text', delta: 'Hello machine.' }]) });
    const { events, clears } = await call({ dialogue }, [{ atMs: 700, event: { type: 'answered-by', answeredBy: 'machine_start' } }]);
    expect(clears).toEqual([700]);
    const reports = events.filter((e) => e.type === 'turn-metrics').map((e) => (e as { report: { agentText: string } }).report.agentText);
    // "three" had started at 700 ms but not ended: only words whose end was played count as heard.
    expect(reports[0]).toBe('one two');
    expect(reports[1]).toBe('Hello machine.');
    expect(events.filter((e) => e.type === 'dtmf')).toEqual([]);
  });

  it('the end of the call cuts the reply that is playing (paused by the caller at 600 ms), reporting what was heard, and drops recognition in progress', async () => {
    const dialogue = new FixedDialogue('fine.', 'one two three four five six seven eight.');
    const { summary, spans, session } = await call({ dialogue }, [{ atMs: 700, event: { type: 'hangup' } }], [{ atMs: 400, ms: 2000, amplitude: 5000 }]);
    expect(summary.turns.map((t) => t.agentText)).toEqual(['one two']);
    expect(spans.filter((s) => s.name === 'asr')).toHaveLength(1);
    expect(session.heardAgentText()).toBeUndefined();
  });
});
