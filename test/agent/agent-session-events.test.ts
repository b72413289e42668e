import { from } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { VoiceAgent, type DialogueOutput, type TransportEvent } from '../../src/agent/index.js';
import type { Expectation } from '../../src/speech/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { spanAttributes } from '../../src/tracing/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, ToneTts } from '../support/agent-doubles.js';
import { sessionCall as call } from '../support/agent-session-call.js';

// A whole call on the virtual clock with the doubles, where the transport also brings events (keypad keys,
// a hang-up) at given call times: what the session does with them, how the call ends, and its span.

const key = (atMs: number, digit: string) => ({ atMs, event: { type: 'dtmf', digit } as TransportEvent });
const digitsExpected: Expectation[] = [{ kind: 'digits', maxLength: 3 }];

describe('keypad entries through the session', () => {
  it('each key is an event; a complete entry is the caller\'s turn, answered like speech', async () => {
    const expecting = new FixedDialogue((input) => `you keyed ${input.userText}.`, 'Your code please.');
    Object.assign(expecting, { expectations: () => digitsExpected });
    const { events, dialogue, summary, spans } = await call({ dialogue: expecting }, [key(2000, '4'), key(2100, '1'), key(2200, '9')]);
    expect(spans.filter((s) => s.name === 'turn').map((s) => s.attributes[spanAttributes.turnKind])).toEqual(['greeting', 'turn']);
    const keypad = events.filter((e) => e.type === 'dtmf' || e.type === 'keypad-entry');
    expect(keypad).toEqual([
      { type: 'dtmf', digit: '4' },
      { type: 'dtmf', digit: '1' },
      { type: 'dtmf', digit: '9' },
      { type: 'keypad-entry', digits: '419' },
    ]);
    expect(events).toContainEqual({ type: 'expecting', expectations: digitsExpected });
    expect((dialogue as FixedDialogue).inputs).toEqual([]);
    expect(expecting.inputs.map((i) => i.userText)).toEqual(['419']);
    expect(summary.turns.map((t) => [t.userText, t.agentText])).toEqual([
      ['', 'Your code please.'],
      ['419', 'you keyed 419.'],
    ]);
  });

  it('an entry completed while the agent speaks interrupts it', async () => {
    const long = new FixedDialogue('fine.', 'one two three four five six seven eight nine ten.');
    Object.assign(long, { expectations: () => digitsExpected });
    const { events } = await call({ dialogue: long }, [key(400, '1'), key(500, '2'), key(600, '3')]);
    const stopped = events.find((e) => e.type === 'agent-stopped-speaking');
    expect(stopped).toEqual({ type: 'agent-stopped-speaking', turn: 0, interrupted: true });
    expect(events).toContainEqual({ type: 'keypad-entry', digits: '123' });
  });

  it('keys without expected digits wait for #, and keys after the call ended do nothing', async () => {
    const { events } = await call({}, [key(2000, '7'), key(2100, '#'), { atMs: 2500, event: { type: 'hangup', reason: 'line dropped' } }, key(2600, '5')]);
    expect(events.filter((e) => e.type === 'keypad-entry')).toEqual([{ type: 'keypad-entry', digits: '7' }]);
    expect(events.filter((e) => e.type === 'dtmf').map((e) => (e as { digit: string }).digit)).toEqual(['7', '#']);
  });
});

describe('how a call ends', () => {
  it('a hang-up from the transport ends the call with its reason; the last event is the hang-up with the summary', async () => {
    const { events, summary, hangups } = await call({}, [{ atMs: 1500, event: { type: 'hangup', reason: 'carrier: completed' } }]);
    expect(summary.reason).toBe('carrier: completed');
    expect(events.at(-1)).toEqual({ type: 'hangup', reason: 'carrier: completed', summary });
    expect(hangups).toEqual([]);
    expect(summary.durationMs).toBe(1500);
  });

  it('a hang-up without a reason is the caller hanging up', async () => {
    const { summary } = await call({}, [{ atMs: 1500, event: { type: 'hangup' } }]);
    expect(summary.reason).toBe('caller hung up');
  });

  it('the dialogue ending the call hangs up the transport with its reason', async () => {
    const ending = new FixedDialogue('bye', 'Goodbye now.');
    ending.respond = () => from<DialogueOutput[]>([]);
    ending.greeting = () => undefined;
    Object.assign(ending, {
      answeredBy: () => from<DialogueOutput[]>([{ type: 'text', delta: 'Bye.' }, { type: 'end-call', reason: 'voicemail left' }]),
    });
    const answered: string[] = [];
    const react = (ending as unknown as { answeredBy: () => unknown }).answeredBy;
    Object.assign(ending, { answeredBy: (by: string) => (answered.push(by), react()) });
    const { summary, hangups } = await call({ dialogue: ending }, [
      { atMs: 200, event: { type: 'dtmf', digit: '1' } },
      { atMs: 300, event: { type: 'answered-by', answeredBy: 'machine_end_beep' } },
    ]);
    expect(answered).toEqual(['machine_end_beep']);
    expect(summary.reason).toBe('voicemail left');
    expect(hangups).toEqual(['voicemail left']);
  });

  it('session.hangup() ends the call at once, named as the agent', async () => {
    const clock = new VirtualClock();
    const agent = new VoiceAgent({ dialogue: new FixedDialogue('x', 'one two three four five.'), stt: new AmplitudeStt(), tts: new ToneTts(), vad: () => new EnergyVad(), mode: 'balanced', clock });
    const transport = new FileTransport(callerTrack(3000, []), clock);
    const session = agent.handle(transport);
    let heard: Array<string | undefined> = [];
    transport.settle = async () => {
      await session.settled();
      if (clock.now() >= 450 && !session.isEnded) {
        heard = [session.heardAgentText()];
        session.hangup();
      }
    };
    const summary = await session.summary;
    expect(summary.reason).toBe('agent hung up');
    expect(session.isEnded).toBe(true);
    // "two" (300-600 ms) had started but not ended when the agent hung up.
    expect(heard).toEqual(['one']);
  });

  it('a recognizer that cannot open for the call fails the call at once as recognition unavailable', async () => {
    const stt = new AmplitudeStt();
    Object.assign(stt, {
      forCall: () => {
        throw new Error('no decoder free');
      },
    });
    const { events, summary, callSpan } = await call({ stt });
    expect(summary.reason).toBe('speech recognition unavailable');
    expect(summary.errors).toBe(1);
    expect(events.filter((e) => e.type === 'error')).toEqual([{ type: 'error', stage: 'asr', message: 'asr failed: no decoder free' }]);
    expect(callSpan.events.map((e) => [e.name, e.attributes])).toEqual([
      ['error', { [spanAttributes.errorStage]: 'asr', 'exception.message': 'asr failed: no decoder free' }],
    ]);
  });

  it('a voice detector that cannot be made fails the call as vad unavailable', async () => {
    const { events, summary } = await call({
      vad: () => {
        throw new Error('model missing');
      },
    });
    expect(summary.reason).toBe('voice activity detector unavailable');
    expect(events.filter((e) => e.type === 'error')).toEqual([{ type: 'error', stage: 'vad', message: 'vad failed: model missing' }]);
  });

  it('releases the call\'s recognizer and voice detector when the call ends', async () => {
    const released: string[] = [];
    const stt = new AmplitudeStt();
    let callerRate: (() => number | undefined) | undefined;
    Object.assign(stt, {
      forCall: (call: { callerSampleRate: () => number | undefined }) => {
        callerRate = call.callerSampleRate;
        return { transcribe: stt.transcribe.bind(stt), expect: () => undefined, release: () => released.push('stt') };
      },
    });
    const vad = new EnergyVad();
    Object.assign(vad, { release: () => released.push('vad') });
    await call({ stt, vad: () => vad }, [{ atMs: 1000, event: { type: 'hangup' } }]);
    expect(released.sort()).toEqual(['stt', 'vad']);
    // The call's recognizer learns the caller's sample rate from the first frame.
    expect(callerRate!()).toBe(16_000);
  });
});

describe('the call span', () => {
  it('is named call, carries the mode and dialogue, and at the end the turns, errors, duration and hang-up reason', async () => {
    const { summary, callSpan, spans } = await call({}, [{ atMs: 5500, event: { type: 'hangup', reason: 'done' } }], [{ atMs: 1500, ms: 600, amplitude: 5000 }]);
    expect(summary.turns.map((t) => t.userText)).toEqual(['', 'hello there']);
    expect(callSpan.attributes).toEqual({
      [spanAttributes.callMode]: 'balanced',
      [spanAttributes.callDialogue]: 'fixed',
      [spanAttributes.callTurns]: 2,
      [spanAttributes.callInterruptions]: 0,
      [spanAttributes.callErrors]: 0,
      [spanAttributes.callDurationMs]: 5500,
      [spanAttributes.callHangupReason]: 'done',
    });
    const turns = spans.filter((s) => s.name === 'turn');
    expect(turns.length).toBeGreaterThanOrEqual(2);
    for (const span of turns) expect(span.parentSpanContext?.spanId).toBe(callSpan.spanContext().spanId);
    expect(spans.filter((s) => s.name === 'asr')).toHaveLength(1);
  });
});
