import { describe, expect, it } from 'vitest';
import { VoiceAgent, type AgentEvent, type ConversationMessage, type Expectation } from '../../src/agent/index.js';
import { ExpectedAnswers, countDigits } from '../../src/agent/expected-answers.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { AmplitudeStt, callerTrack, EnergyVad, ToneTts } from '../support/agent-doubles.js';
import { compileGrammar, lackingDigits, withDecoys } from '../../src/engines/pocketsphinx/grammar.js';
import { grammarAccepts } from '../../src/engines/pocketsphinx/grammar-match.js';
import { ScriptedDialogue } from '../../plugins/index.js';
import { loadScript, parseScript } from '../../plugins/scripted/script-loader.js';
import { extractSlot } from '../../plugins/scripted/slot-extractors.js';
import { tokenize } from '../../plugins/scripted/text-normalizer.js';

const knowsAll = () => true;

describe('expectations compiled to a JSGF grammar', () => {
  it('reads digits between the minimum and maximum length, and leaves out phrases the dictionary lacks', () => {
    const grammar = compileGrammar([{ kind: 'digits', minLength: 2, maxLength: 4 }, { kind: 'choice', options: ['tracking', 'zorblax'] }], (w) => w !== 'zorblax')!;
    expect(grammar).toContain('<e0> = <digit> <digit> [<digit> [<digit>]];');
    expect(grammar).toContain('<e1> = tracking;');
    expect(grammar).not.toContain('zorblax');
  });

  it('takes "oh" as zero among other digits, never alone', () => {
    for (const digits of [{}, { maxLength: 1 }, { minLength: 1, maxLength: 3 }]) {
      const grammar = compileGrammar([{ kind: 'digits', ...digits }], knowsAll)!;
      expect(grammarAccepts(grammar, 'oh')).toBe(false);
      expect(grammarAccepts(grammar, 'zero')).toBe(true);
      expect(grammarAccepts(grammar, 'nine')).toBe(true);
      expect(grammarAccepts(grammar, 'four oh')).toBe(digits.maxLength !== 1);
    }
    expect(grammarAccepts(compileGrammar([{ kind: 'digits', maxLength: 3 }], knowsAll)!, 'four oh one two')).toBe(false);
  });

  it('searches with decoys beside the expected answers, leaving out those the grammar takes', () => {
    const grammar = compileGrammar([{ kind: 'digits' }, { kind: 'choice', options: ['go', 'stop'] }], knowsAll)!;
    const search = withDecoys(grammar, ['oh', 'go', 'no']);
    expect([...search.decoys]).toEqual(['oh', 'no']);
    expect(search.jsgf).toContain('public <expected> = <e0> | <e1> | <decoy>;');
    expect(grammarAccepts(search.jsgf, 'no')).toBe(true);
    expect(grammarAccepts(search.jsgf, 'four oh')).toBe(true);
    // A decoy is a whole answer of its own, not a word within another.
    expect(grammarAccepts(search.jsgf, 'four no')).toBe(false);
    expect(withDecoys(compileGrammar([{ kind: 'yes-no' }], knowsAll)!, ['no'])).toEqual({ jsgf: compileGrammar([{ kind: 'yes-no' }], knowsAll), decoys: new Set() });
  });

  it('makes no grammar of open vocabulary or of phrases it cannot spell', () => {
    expect(compileGrammar([{ kind: 'free' }], knowsAll)).toBeUndefined();
    expect(compileGrammar([{ kind: 'name', names: ['Xqz'] }], () => false)).toBeUndefined();
  });

  it('tells whether a text is an expected answer (so it need not be decoded again)', () => {
    const digits = compileGrammar([{ kind: 'digits', minLength: 2, maxLength: 4 }, { kind: 'yes-no' }], knowsAll)!;
    expect(grammarAccepts(digits, 'four one nine two')).toBe(true);
    expect(grammarAccepts(digits, 'four one')).toBe(true);
    expect(grammarAccepts(digits, 'four')).toBe(false);
    expect(grammarAccepts(digits, 'four one nine two six')).toBe(false);
    expect(grammarAccepts(digits, 'for one nine two')).toBe(false);
    expect(grammarAccepts(digits, 'no thank you')).toBe(true);
    expect(grammarAccepts(digits, 'no thank')).toBe(false);
    expect(grammarAccepts(digits, '')).toBe(false);
    const open = compileGrammar([{ kind: 'digits' }, { kind: 'time' }, { kind: 'phrases', phrases: ['track a parcel'], keywords: ['parcel', 'refund'] }], knowsAll)!;
    expect(grammarAccepts(open, 'one two three four five six seven')).toBe(true);
    expect(grammarAccepts(open, "at half past ten")).toBe(true);
    expect(grammarAccepts(open, "ten thirty five o'clock p.m.")).toBe(true);
    expect(grammarAccepts(open, 'refund parcel refund')).toBe(true);
    expect(grammarAccepts(open, 'track a refund')).toBe(false);
  });

  it('lets runs of keywords with number words also take the digit words they lack, when asked to (runDecoys)', () => {
    const ranks = ['ace', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'of', 'clubs'];
    expect(lackingDigits(ranks)).toEqual(['zero', 'one']);
    expect(lackingDigits(['Two Pairs', 'nine'])).toEqual(['zero', 'one', 'three', 'four', 'five', 'six', 'seven', 'eight']);
    expect(lackingDigits(['parcel', 'refund', 'ten'])).toEqual([]);
    const expectations: Expectation[] = [{ kind: 'yes-no' }, { kind: 'phrases', phrases: ['one pair'], keywords: ranks }];
    const grammar = compileGrammar(expectations, knowsAll)!;
    const checked = compileGrammar(expectations, knowsAll, { runDecoys: true })!;
    expect(grammarAccepts(grammar, 'three one five ten')).toBe(false);
    expect(grammarAccepts(checked, 'three one five ten')).toBe(true);
    expect(grammarAccepts(checked, 'three oh five')).toBe(false);
    expect(grammarAccepts(checked, 'one pair')).toBe(true);
    expect(grammarAccepts(checked, 'one')).toBe(true);
    expect(grammarAccepts(checked, 'yes one')).toBe(false);
    // Only words of the dictionary.
    expect(compileGrammar(expectations, (word) => word !== 'zero', { runDecoys: true })).toContain('| ten | of | clubs | one)+;');
    // Runs without number words are as they were.
    const parcels: Expectation[] = [{ kind: 'phrases', phrases: [], keywords: ['parcel', 'refund'] }];
    expect(compileGrammar(parcels, knowsAll, { runDecoys: true })).toBe(compileGrammar(parcels, knowsAll));
    const phrasesOnly: Expectation[] = [{ kind: 'phrases', phrases: ['track a parcel'] }];
    expect(compileGrammar(phrasesOnly, knowsAll, { runDecoys: true })).toContain('\n<e0> = track a parcel;');
  });
});

describe('endpointing and keypad with expectations', () => {
  it('waits through pauses until the expected digits are heard, and ends a yes/no sooner', () => {
    const listening = new ExpectedAnswers(undefined, { digitPauseMs: 1500, yesNoSilenceMs: 300 });
    expect(listening.endpointSilenceMs(500, 'four one')).toBe(500);
    listening.expect([{ kind: 'digits', minLength: 4, maxLength: 4 }]);
    expect(listening.endpointSilenceMs(500, 'four one')).toBe(1500);
    expect(listening.endpointSilenceMs(500, 'four one nine two')).toBe(500);
    listening.expect([{ kind: 'yes-no' }]);
    expect(listening.endpointSilenceMs(500, '')).toBe(300);
    expect(countDigits('oh 12 three')).toBe(4);
  });

  it('ends keypad entry on # or at the expected length; * starts over', () => {
    const listening = new ExpectedAnswers(undefined);
    listening.expect([{ kind: 'digits', maxLength: 4 }]);
    expect(['4', '1', '9'].map((k) => listening.press(k))).toEqual([undefined, undefined, undefined]);
    expect(listening.press('2')).toBe('4192');
    expect(listening.press('7')).toBeUndefined();
    expect(listening.press('*')).toBeUndefined();
    expect(listening.press('#')).toBeUndefined();
    listening.press('5');
    expect(listening.press('#')).toBe('5');
  });

  it('hands expectations to the call recognizer', () => {
    const seen: unknown[] = [];
    const listening = new ExpectedAnswers({ transcribe: () => { throw new Error('unused'); }, release: () => undefined, expect: (e) => seen.push(e) });
    listening.expect([{ kind: 'yes-no' }]);
    listening.expect([]);
    expect(seen).toEqual([[{ kind: 'yes-no' }], undefined]);
  });
});

describe('ScriptedDialogue expectations and the digits slot', () => {
  const script = loadScript('examples/scripts/parcel-line.yaml');

  it('derives digits, then the yes/no intents, then the choice, from the state it is in', () => {
    const dialogue = new ScriptedDialogue(script);
    expect(dialogue.expectations([])).toEqual([{ kind: 'digits', minLength: 4, maxLength: 4 }]);
    const afterCode = [{ role: 'user' as const, text: 'four one nine two' }];
    expect(dialogue.expectations(afterCode)).toEqual([
      expect.objectContaining({ kind: 'phrases', keywords: expect.arrayContaining(['yes', 'no']) }),
    ]);
    expect(dialogue.expectations([...afterCode, { role: 'user', text: 'yes' }])).toEqual([
      expect.objectContaining({ kind: 'choice', options: expect.arrayContaining(['go', 'stop', 'up']) }),
    ]);
  });

  it('listens for each kind of slot as the state asks for it, for global intents, and for nothing once the call has ended', () => {
    const booking = parseScript(
      `
name: booking
start: book
slots:
  party: { type: number, min: 1, max: 12 }
  guests: { type: number }
  when: { type: time }
  day: { type: day }
  who: { type: name }
  phone: { type: digits }
  plan: { type: pattern, regex: 'plan ([a-z])' }
intents:
  bye: { examples: [goodbye], keywords: [] }
states:
  book:
    collect:
      - { slot: party, prompt: How many? }
      - { slot: guests, prompt: Any guests? }
      - { slot: when, prompt: What time? }
      - { slot: day, prompt: Which day? }
      - { slot: who, prompt: Your name? }
      - { slot: phone, prompt: Your number? }
      - { slot: plan, prompt: Which plan? }
    then: { reply: Booked., end: true }
`,
      'booking.yaml',
    );
    const dialogue = new ScriptedDialogue(booking);
    const history: ConversationMessage[] = [];
    const heard: Array<Expectation[] | undefined> = [dialogue.expectations(history)];
    for (const text of ['four', 'two', 'at seven', 'monday', 'my name is ada', 'four one nine two']) {
      history.push({ role: 'user', text });
      heard.push(dialogue.expectations(history));
    }
    // Names and patterns are open-ended: nothing to listen for.
    expect(heard).toEqual([[{ kind: 'number', min: 1, max: 12 }], [{ kind: 'number' }], [{ kind: 'time' }], [{ kind: 'date' }], undefined, [{ kind: 'digits' }], undefined]);
    const said = (text: string) => [{ role: 'user' as const, text }];
    const global = new ScriptedDialogue(
      parseScript(
        `
name: greeter
start: hello
intents:
  bye: { examples: [goodbye], keywords: [bye] }
global:
  - { intent: bye, reply: Bye., end: true }
states:
  hello:
    say: Hello.
`,
        'greeter.yaml',
      ),
    );
    expect(global.expectations([])).toEqual([{ kind: 'phrases', phrases: ['goodbye'], keywords: ['bye'] }]);
    expect(global.expectations(said('bye'))).toBeUndefined();
  });

  it('reads a digit string said or keyed, within its length', () => {
    const slot = { type: 'digits' as const, min: 4, max: 4 };
    expect(extractSlot(tokenize('it is four one oh two'), slot, true)).toBe('4102');
    expect(extractSlot(tokenize('4192'), slot, false)).toBe('4192');
    expect(extractSlot(tokenize('four one nine'), slot, true)).toBeUndefined();
    expect(extractSlot(tokenize('for one nine two'), slot, true)).toBe('4192');
    expect(extractSlot(tokenize('for one nine two'), slot, false)).toBeUndefined();
    // Without a length: a lone digit only when asked for (unasked, "four" is more likely a count).
    expect(extractSlot(tokenize('four'), { type: 'digits' }, true)).toBe('4');
    expect(extractSlot(tokenize('four'), { type: 'digits' }, false)).toBeUndefined();
    expect(extractSlot(tokenize('four one'), { type: 'digits' }, false)).toBe('41');
    // "oh" is zero among digits; alone, the interjection.
    expect(extractSlot(tokenize('oh'), { type: 'digits' }, true)).toBeUndefined();
    expect(extractSlot(tokenize('oh i see'), { type: 'digits' }, true)).toBeUndefined();
    expect(extractSlot(tokenize('well oh'), { type: 'digits' }, true)).toBeUndefined();
    expect(extractSlot(tokenize('o'), { type: 'digits' }, true)).toBeUndefined();
    expect(extractSlot(tokenize('zero'), { type: 'digits' }, true)).toBe('0');
    expect(extractSlot(tokenize('oh four'), { type: 'digits' }, true)).toBe('04');
    expect(extractSlot(tokenize('four oh'), { type: 'digits' }, true)).toBe('40');
    expect(extractSlot(tokenize('four one then two'), { type: 'digits' }, true)).toBe('41');
  });
});

describe('the keypad in a call', () => {
  it('collects keys as DTMF events and hands the completed entry to the dialogue as the caller turn', async () => {
    const clock = new VirtualClock();
    const agent = new VoiceAgent({
      dialogue: new ScriptedDialogue(loadScript('examples/scripts/parcel-line.yaml')),
      stt: new AmplitudeStt(),
      tts: new ToneTts(),
      vad: () => new EnergyVad(),
      mode: 'balanced',
      clock,
    });
    const transport = new FileTransport(callerTrack(20_000, []), clock, { maxTailMs: 60_000 });
    const session = agent.handle(transport);
    transport.settle = () => session.settled();
    const keys = ['4', '1', '9', '2'];
    const events: AgentEvent[] = [];
    session.events$.subscribe((event) => {
      events.push(event);
      if (event.type === 'agent-stopped-speaking' && event.turn === 0) queueMicrotask(() => keys.forEach((digit) => transport.events$.next({ type: 'dtmf', digit })));
    });
    const summary = await session.summary;
    expect(events.filter((e) => e.type === 'dtmf').map((e) => (e.type === 'dtmf' ? e.digit : ''))).toEqual(keys);
    expect(events).toContainEqual({ type: 'keypad-entry', digits: '4192' });
    expect(summary.turns).toContainEqual(expect.objectContaining({ userText: '4192', agentText: 'I heard 4192. Is that right?' }));
  }, 60_000);
});
