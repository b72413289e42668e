import { describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { loadScript, parseScript, ScriptedDialogue } from '../../plugins/index.js';
import { noAnswers, yesAnswers, type ConversationMessage, type DialogueOutput } from '../../src/agent/index.js';

// Slot values from a turn recognised with expectations that came out as open vocabulary ("it go and" where go,
// stop or up was expected) are more likely misheard: before acting on them, the script asks.

/** A caller turn: its words, and `false` when heard outside the expectations. */
type Turn = [text: string, expected?: boolean];

async function converse(dialogue: ScriptedDialogue, turns: Turn[]) {
  const history: ConversationMessage[] = [];
  const replies: Array<{ text: string; outputs: DialogueOutput[] }> = [];
  for (const [userText, expected] of turns) {
    const heard = expected === undefined ? {} : { expected };
    const outputs = await lastValueFrom(dialogue.respond({ history, userText, ...heard }).pipe(toArray()));
    const text = outputs.flatMap((o) => (o.type === 'text' ? [o.delta] : [])).join('');
    history.push({ role: 'user', text: userText, ...heard }, { role: 'agent', text });
    replies.push({ text, outputs });
  }
  return { replies, history };
}

const actions = (outputs: DialogueOutput[]) => outputs.filter((o) => o.type === 'tool-call' || o.type === 'end-call');
const parcel = () => new ScriptedDialogue(loadScript('examples/scripts/parcel-line.yaml'));
/** The parcel line up to its menu, every answer heard as expected. */
const toMenu: Turn[] = [['four one nine two', true], ['yes', true]];
const menuPrompt = 'Say go to continue, stop to cancel, or up for the main menu.';

describe('scripted dialogue: a turn heard outside the expectations', () => {
  it('asks before acting on it, and acts on a yes', async () => {
    const { replies, history } = await converse(parcel(), [...toMenu, ['it go and', false]]);
    expect(replies[2]!.text).toBe('Did you say go?');
    expect(actions(replies[2]!.outputs)).toEqual([]);
    const dialogue = parcel();
    expect(dialogue.expectations(history)).toEqual([{ kind: 'yes-no' }, expect.objectContaining({ kind: 'choice' })]);
    const { replies: after } = await converse(dialogue, [...toMenu, ['it go and', false], ['yeah', false]]);
    expect(after[3]!.text).toBe('Thank you. Goodbye.');
    expect(actions(after[3]!.outputs)).toEqual([
      { type: 'tool-call', name: 'route', arguments: { code: '4192', option: 'go' } },
      { type: 'end-call', reason: 'script ended the call' },
    ]);
  });

  it('asks for the answer again on a no, and takes the next one', async () => {
    const { replies } = await converse(parcel(), [...toMenu, ['it go and', false], ['no', true], ['stop', true]]);
    expect(replies[3]!.text).toBe(menuPrompt);
    expect(actions(replies[3]!.outputs)).toEqual([]);
    expect(actions(replies[4]!.outputs)).toContainEqual({ type: 'tool-call', name: 'route', arguments: { code: '4192', option: 'stop' } });
  });

  it('takes any other answer to the question as a new turn', async () => {
    const { replies } = await converse(parcel(), [...toMenu, ['it go and', false], ['stop', true]]);
    expect(actions(replies[3]!.outputs)).toContainEqual({ type: 'tool-call', name: 'route', arguments: { code: '4192', option: 'stop' } });
  });

  it('asks again when the new answer is heard outside the expectations too', async () => {
    const { replies } = await converse(parcel(), [...toMenu, ['it go and', false], ['the stop', false]]);
    expect(replies[3]!.text).toBe('Did you say stop?');
    expect(actions(replies[3]!.outputs)).toEqual([]);
  });

  it('acts at once on a turn heard as expected, or without expectations', async () => {
    for (const expected of [true, undefined]) {
      const { replies } = await converse(parcel(), [...toMenu, ['it go and', expected]]);
      expect(actions(replies[2]!.outputs)).toContainEqual({ type: 'tool-call', name: 'route', arguments: { code: '4192', option: 'go' } });
    }
  });

  it('does not ask when the turn does not act: the script goes on as heard', async () => {
    const { replies } = await converse(parcel(), [['four one nine two', false]]);
    expect(replies[0]!.text).toBe('I heard 4192. Is that right?');
  });

  const shop = parseScript(
    `
name: shop
start: open
confirm: ['So that was {heard}?', 'Once more, {heard}?']
slots:
  size: { type: choice, values: { small: [little], large: [big] } }
  count: { type: number, min: 1, max: 9, units: [pizzas] }
intents:
  cancel: { examples: [cancel my order], keywords: [cancel] }
  order: { examples: [i would like to order], keywords: [order], slots: [count, size] }
states:
  open:
    on:
      - { intent: cancel, action: { name: cancel_order }, reply: Cancelled., end: true }
      - { intent: order, action: { name: order, arguments: { count: '{count}', size: '{size}' } }, reply: Ordered., goto: open }
    fallback: Order or cancel?
`,
    'shop.yaml',
  );

  it("asks in the script's own words, naming every value, the next variant when asking again", async () => {
    const { replies } = await converse(new ScriptedDialogue(shop), [['order two big pizzas', false], ['order three little pizzas', false], ['yes', true]]);
    expect(replies.map((r) => r.text)).toEqual(['So that was 2, large?', 'Once more, 3, small?', 'Ordered.']);
    expect(replies[2]!.outputs.filter((o) => o.type === 'tool-call')).toEqual([{ type: 'tool-call', name: 'order', arguments: { count: 3, size: 'small' } }]);
  });

  it("takes the caller's yes in any of the usual words, and asks again on any usual no", async () => {
    for (const yes of ['yes', 'yeah', 'yep', 'sure', 'correct', 'that is right', 'yes please']) {
      const { replies } = await converse(new ScriptedDialogue(shop), [['order two big pizzas', false], [yes, true]]);
      expect(replies[1]!.text, yes).toBe('Ordered.');
    }
    for (const no of ['no', 'nope', 'wrong', 'no it is not', 'that is wrong']) {
      const { replies } = await converse(new ScriptedDialogue(shop), [['order two big pizzas', false], [no, true]]);
      // The state asks for no slot: its fallback is the question again.
      expect(replies[1]!.text, no).toBe('Order or cancel?');
      expect(actions(replies[1]!.outputs), no).toEqual([]);
    }
  });

  it('understands every answer the recognizer listens for to a yes-no question ("okay", "no thanks")', async () => {
    for (const yes of yesAnswers) {
      const { replies } = await converse(new ScriptedDialogue(shop), [['order two big pizzas', false], [yes, true]]);
      expect(replies[1]!.text, yes).toBe('Ordered.');
    }
    for (const no of noAnswers) {
      const { replies } = await converse(new ScriptedDialogue(shop), [['order two big pizzas', false], [no, true]]);
      expect(replies[1]!.text, no).toBe('Order or cancel?');
    }
  });

  it('asks before ending the call on slot values, with no action', async () => {
    const leave = parseScript(
      `
name: leave
start: ask
slots:
  answer: { type: choice, values: { stay: [remain], leave: [go] } }
intents: {}
states:
  ask:
    collect:
      - { slot: answer, prompt: Stay or leave? }
    then: { reply: Bye., end: true }
`,
      'leave.yaml',
    );
    const { replies } = await converse(new ScriptedDialogue(leave), [['i leave it', false], ['yes', true]]);
    expect(replies.map((r) => r.text)).toEqual(['Did you say leave?', 'Bye.']);
    expect(actions(replies[1]!.outputs)).toEqual([{ type: 'end-call', reason: 'script ended the call' }]);
  });

  it('takes an intent heard outside its example phrases as heard: callers word them their own way', async () => {
    const { replies } = await converse(new ScriptedDialogue(shop), [['i can cancel them maybe', false]]);
    expect(replies[0]!.text).toBe('Cancelled.');
    expect(actions(replies[0]!.outputs)).toContainEqual({ type: 'tool-call', name: 'cancel_order', arguments: {} });
  });

  it('replays how each turn was heard from the history', () => {
    const history: ConversationMessage[] = [
      { role: 'user', text: 'four one nine two', expected: true },
      { role: 'user', text: 'yes', expected: true },
      { role: 'user', text: 'it go and', expected: false },
    ];
    const dialogue = parcel();
    expect(dialogue.stateAfter(history)).toMatchObject({ unconfirmed: 'it go and', turns: 3 });
    expect(dialogue.stateAfter([...history, { role: 'user', text: 'yes', expected: true }])).toMatchObject({ ended: true, turns: 4 });
    expect(dialogue.stateAfter([...history, { role: 'user', text: 'no', expected: true }])).toMatchObject({ state: 'menu', awaiting: 'option', turns: 4 });
    // The same words heard otherwise, or other words, are replayed anew.
    expect(dialogue.stateAfter(history.map((m) => ({ ...m, expected: true }))).ended).toBe(true);
    expect(dialogue.stateAfter([{ role: 'user', text: 'four one nine', expected: true }]).state).toBe('code');
  });
});
