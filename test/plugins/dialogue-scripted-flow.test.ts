import { describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { parseScript, ScriptedDialogue, ScriptLoopError } from '../../plugins/index.js';
import type { ConversationMessage, DialogueOutput } from '../../src/agent/index.js';

const script = parseScript(`
name: pizza
greeting: Pizza Planet, what can I get you?
start: welcome
reprompt: Hello? Are you there?
slots:
  size: { type: choice, values: { small: [little], large: [big, huge] } }
  count: { type: number, min: 1, max: 10, units: [pizzas, pizza] }
  name: { type: name }
intents:
  order: { examples: [i would like to order a pizza], keywords: [pizza, order], slots: [size, count] }
  yes: { keywords: [yes, yeah, sure] }
  no: { keywords: [no, nope] }
  bye: { keywords: [goodbye, bye] }
  again: { keywords: [repeat] }
global:
  - { intent: bye, reply: Bye now!, end: caller left }
  - { intent: again, repeat: true }
fallback: ['Sorry?', 'Sorry, I still did not get that.']
escalate: { after: 3, reply: Let me get a colleague., action: { name: transfer_call }, end: escalated }
states:
  welcome:
    on:
      - { intent: order, goto: taking_order }
  taking_order:
    collect:
      - { slot: count, prompt: How many pizzas? }
      - { slot: size, prompt: Small or large? }
      - { slot: name, prompt: And the name for the order? }
    then: { goto: confirm }
    reprompt: Still there? {count? You wanted {count} pizzas.}
  confirm:
    say: "{count} {size} pizzas for {name}. Right?"
    on:
      - intent: yes
        action: { name: place_order, arguments: { count: "{count}", size: "{size}", who: "Order for {name}" } }
        reply: Done, see you soon.
        end: true
      - { intent: no, clear: [size], reply: Okay., goto: taking_order }
    fallback: Please say yes or no.
`, 'pizza.yaml');

async function converse(dialogue: ScriptedDialogue, turns: string[]) {
  const history: ConversationMessage[] = [];
  const replies: Array<{ text: string; outputs: DialogueOutput[] }> = [];
  for (const userText of turns) {
    const outputs = await lastValueFrom(dialogue.respond({ history, userText }).pipe(toArray()));
    const text = outputs.flatMap((o) => (o.type === 'text' ? [o.delta] : [])).join('');
    history.push({ role: 'user', text: userText }, { role: 'agent', text });
    replies.push({ text, outputs });
  }
  return { replies, history };
}

describe('scripted dialogue: states, slots and transitions', () => {
  it('fills a form over several turns, asking for the first missing slot, then confirms with the slots', async () => {
    const dialogue = new ScriptedDialogue(script);
    expect(dialogue.greeting()).toBe('Pizza Planet, what can I get you?');
    const { replies, history } = await converse(dialogue, ['i would like to order a pizza', 'three', 'large please', 'my name is ada lovelace']);
    expect(replies.map((r) => r.text)).toEqual([
      'How many pizzas?',
      'Small or large?',
      'And the name for the order?',
      '3 large pizzas for Ada Lovelace. Right?',
    ]);
    expect(dialogue.stateAfter(history)).toMatchObject({ state: 'confirm', slots: { count: 3, size: 'large', name: 'Ada Lovelace' } });
  });

  it('takes every slot said at once and skips their questions', async () => {
    const { replies } = await converse(new ScriptedDialogue(script), ['two big pizzas please', 'bob']);
    expect(replies.map((r) => r.text)).toEqual(['And the name for the order?', '2 large pizzas for Bob. Right?']);
  });

  it('clears a slot and goes back to ask for it again', async () => {
    const { replies } = await converse(new ScriptedDialogue(script), ['two big pizzas', 'bob', 'no', 'small']);
    expect(replies[2]!.text).toBe('Okay. Small or large?');
    expect(replies[3]!.text).toBe('2 small pizzas for Bob. Right?');
  });

  it('emits the action as a tool call with slot values (numbers kept) before the reply, then ends the call', async () => {
    const { replies } = await converse(new ScriptedDialogue(script), ['two big pizzas', 'bob', 'yes']);
    const outputs = replies[2]!.outputs;
    expect(outputs[0]).toEqual({ type: 'tool-call', name: 'place_order', arguments: { count: 2, size: 'large', who: 'Order for Bob' } });
    expect(outputs[outputs.length - 1]).toEqual({ type: 'end-call', reason: 'script ended the call' });
    expect(replies[2]!.text).toBe('Done, see you soon.');
  });

  it('ends the call from any state on a global intent, and stays ended', async () => {
    const dialogue = new ScriptedDialogue(script);
    const { replies } = await converse(dialogue, ['order a pizza', 'goodbye', 'hello?']);
    expect(replies[1]!.text).toBe('Bye now!');
    expect(replies[1]!.outputs.at(-1)).toEqual({ type: 'end-call', reason: 'caller left' });
    expect(replies[2]!.text).toBe('');
    expect(replies[2]!.outputs).toEqual([{ type: 'end-call', reason: 'the call has ended' }]);
  });

  it('repeats the previous agent line on request', async () => {
    const { replies } = await converse(new ScriptedDialogue(script), ['order a pizza', 'can you repeat that']);
    expect(replies[1]!.text).toBe('How many pizzas?');
  });
});

describe('scripted dialogue: fallbacks and escalation', () => {
  it('uses the fallback lines in turn, then escalates after N misses in a row', async () => {
    const { replies } = await converse(new ScriptedDialogue(script), ['what is the weather', 'blah blah', 'purple monkey']);
    expect(replies[0]!.text).toBe('Sorry?');
    expect(replies[1]!.text).toBe('Sorry, I still did not get that.');
    expect(replies[2]!.text).toBe('Let me get a colleague.');
    expect(replies[2]!.outputs[0]).toEqual({ type: 'tool-call', name: 'transfer_call', arguments: {} });
    expect(replies[2]!.outputs.at(-1)).toEqual({ type: 'end-call', reason: 'escalated' });
  });

  it('resets the miss count after a match', async () => {
    const { replies } = await converse(new ScriptedDialogue(script), ['what is the weather', 'blah', 'order a pizza', 'uh', 'hmm']);
    expect(replies.map((r) => r.text)).toEqual([
      'Sorry?',
      'Sorry, I still did not get that.',
      'How many pizzas?',
      'Sorry? How many pizzas?',
      'Sorry, I still did not get that. How many pizzas?',
    ]);
  });

  it("uses a state's own fallback line", async () => {
    const { replies } = await converse(new ScriptedDialogue(script), ['two big pizzas', 'bob', 'the sky is blue']);
    expect(replies[2]!.text).toBe('Please say yes or no.');
  });
});

describe('scripted dialogue: greeting and reprompt', () => {
  it('reprompts with the state line, the awaited slot question, or the script default', async () => {
    const dialogue = new ScriptedDialogue(script);
    expect(dialogue.reprompt([])).toBe('Hello? Are you there?');
    const { history } = await converse(dialogue, ['order two pizzas']);
    expect(dialogue.reprompt(history)).toBe('Still there? You wanted 2 pizzas.');
    const confirm = await converse(dialogue, ['two big pizzas', 'bob']);
    expect(dialogue.reprompt(confirm.history)).toBe('Hello? Are you there?');
  });

  it('has no greeting line when the script sets none', () => {
    const silent = parseScript('{"name":"x","start":"a","intents":{"i":{"keywords":["hi"]}},"states":{"a":{}}}', 'x.json');
    expect(new ScriptedDialogue(silent).greeting()).toBeUndefined();
  });
});

describe('scripted dialogue: state comes from the history', () => {
  it('leaves no trace of a reply computed for a transcript that was then replaced', async () => {
    const dialogue = new ScriptedDialogue(script);
    // A preemptive reply on an interim transcript, then the final transcript differs.
    await lastValueFrom(dialogue.respond({ history: [], userText: 'goodbye' }).pipe(toArray()));
    const final = await lastValueFrom(dialogue.respond({ history: [], userText: 'order a pizza' }).pipe(toArray()));
    expect(final.filter((o) => o.type === 'end-call')).toEqual([]);
    const history: ConversationMessage[] = [{ role: 'user', text: 'order a pizza' }, { role: 'agent', text: 'How many pizzas?' }];
    expect(dialogue.stateAfter(history).state).toBe('taking_order');
  });

  it('two dialogues of one script do not share a conversation', async () => {
    const a = new ScriptedDialogue(script);
    const b = new ScriptedDialogue(script);
    const first = await converse(a, ['order a pizza']);
    expect(a.stateAfter(first.history).state).toBe('taking_order');
    expect(b.stateAfter([]).state).toBe('welcome');
  });

  it('reports a script that loops without waiting for the caller', async () => {
    const looping = parseScript(`
name: loop
start: a
intents: { go: { keywords: [go] } }
states:
  a: { on: [{ intent: go, goto: b }] }
  b: { then: { goto: c } }
  c: { then: { goto: b } }
`, 'loop.yaml');
    const outputs = lastValueFrom(new ScriptedDialogue(looping).respond({ history: [], userText: 'go' }));
    await expect(outputs).rejects.toThrow(ScriptLoopError);
  });
});
