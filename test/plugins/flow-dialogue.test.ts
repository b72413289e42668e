import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { FlowDialogue, parseFlow, ScriptValidationError, type FlowDialogueOptions } from '../../plugins/index.js';
import type { ConversationMessage, DialogueOutput, SpeculativeTurn } from '../../src/agent/index.js';
import { callsTools, FakeOpenAiServer, says } from '../support/fake-openai-server.js';

const fake = new FakeOpenAiServer();
beforeAll(() => fake.start());
afterAll(() => fake.close());
afterEach(() => fake.reset());

const flowText = `
name: refill
greeting: Welcome to the pharmacy.
start: menu
llm: { url: "http://127.0.0.1:1/v1", model: m, instructions: "You are the pharmacy line." }
global_tools: [transfer_call]
intents:
  refill: { keywords: [refill] }
slots:
  rx: { type: digits, min: 7, max: 7 }
tools:
  verify_identity: { description: Checks the date of birth, parameters: { type: object, properties: { dob: { type: string } } } }
  place_refill: { description: Places the refill }
  transfer_call: { description: Transfers the call }
states:
  menu:
    say: Say refill to refill a prescription.
    on: [{ intent: refill, goto: identify }]
  identify:
    llm: { task: "Ask for the date of birth and check it with verify_identity.", tools: [verify_identity], expect: { kind: date } }
    on_tool:
      verify_identity: { when: "result.ok && result.tries < 3", goto: prescription, else: { reply: "Sorry, that does not match.", goto: identify } }
    after: { turns: 2, reply: "Let me get you a pharmacist.", end: transfer }
  prescription:
    llm: { task: "Ask for the prescription number.", context: reset, goto: [confirm] }
    collect: [rx]
    then: { goto: confirm }
  confirm:
    llm: { task: "Read back {rx} and place the refill.", tools: [place_refill], context: summary }
    on_tool: { place_refill: { goto: done } }
  done:
    say: "Your refill is placed. Goodbye."
    on: [{ intent: refill, goto: identify }]
`;

const history: ConversationMessage[] = [];
type Runner = { flow: FlowDialogue; turn(text: string, speculative?: SpeculativeTurn): Promise<DialogueOutput[]> };
function start(tools: FlowDialogueOptions['tools'] = [], text = flowText): Runner {
  const flow = new FlowDialogue(parseFlow(text, 'refill.yaml', { tools: tools.map((t) => t.name) }), { baseUrl: fake.baseUrl, apiKey: 'k', tools, retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1 } });
  history.length = 0;
  history.push({ role: 'agent', text: flow.greeting() ?? '' });
  return {
    flow,
    async turn(userText, speculative) {
      const outputs = await lastValueFrom(flow.respond({ history: [...history], userText, ...(speculative ? { speculative } : {}) }).pipe(toArray()));
      history.push({ role: 'user', text: userText }, { role: 'agent', text: spoken(outputs) });
      return outputs;
    },
  };
}
const spoken = (outputs: DialogueOutput[]) => outputs.map((o) => (o.type === 'text' ? o.delta : '')).join('');
const systemOf = (i: number) => fake.seen[i]!.body.messages![0]!.content as string;
const toolsOf = (i: number) => (fake.seen[i]!.body.tools as Array<{ function: { name: string } }> | undefined)?.map((t) => t.function.name) ?? [];
const verify = (ok: boolean, tries = 1) => ({ name: 'verify_identity', run: () => ({ ok, tries }) });

describe('a flow with LLM states on a model double', () => {
  it('a scripted state hands over to an LLM state: the model speaks first, with the state\'s task and tools', async () => {
    const call = start([verify(true)]);
    expect(call.flow.greeting()).toBe('Welcome to the pharmacy. Say refill to refill a prescription.');
    fake.handlers.push(says('What is your date of birth?'));
    const outputs = await call.turn('I need a refill');
    expect(spoken(outputs)).toBe('What is your date of birth?');
    expect(call.flow.state).toBe('identify');
    expect(systemOf(0)).toBe('You are the pharmacy line.\n\nAsk for the date of birth and check it with verify_identity.');
    expect(toolsOf(0)).toEqual(['verify_identity', 'transfer_call', 'expect_answer']);
    expect(call.flow.expectations()).toEqual([{ kind: 'date' }]);
  });

  it('on_tool moves on when the condition holds; the next request has the next state\'s prompt and tools', async () => {
    const call = start([verify(true)]);
    fake.handlers.push(says('Your date of birth?'));
    await call.turn('refill please');
    fake.handlers.push(callsTools([{ id: 'c1', name: 'verify_identity', arguments: { dob: '1980-02-03' } }]), says('Thanks. What is the prescription number?'));
    const outputs = await call.turn('third of February 1980');
    expect(call.flow.state).toBe('prescription');
    expect(outputs[0]).toMatchObject({ type: 'tool-call', name: 'verify_identity', result: { ok: true, tries: 1 } });
    expect(spoken(outputs)).toBe('Thanks. What is the prescription number?');
    expect(systemOf(2)).toBe('You are the pharmacy line.\n\nAsk for the prescription number.');
    expect(toolsOf(2)).toEqual(['transfer_call', 'expect_answer', 'goto', 'fill_slots']);
    // context: reset: the new state's request has no earlier turns and no tool exchange.
    expect(fake.seen[2]!.body.messages).toEqual([{ role: 'system', content: systemOf(2) }]);
  });

  it('on_tool takes else when the condition fails: the reply, and the state is entered again', async () => {
    const call = start([verify(false)]);
    fake.handlers.push(says('Your date of birth?'));
    await call.turn('refill');
    fake.handlers.push(callsTools([{ id: 'c1', name: 'verify_identity', arguments: { dob: 'x' } }]), says('Could you say it again?'));
    const outputs = await call.turn('the first of May');
    expect(spoken(outputs)).toBe('Sorry, that does not match. Could you say it again?');
    expect(call.flow.state).toBe('identify');
    // context: append keeps the call so far, the failed check included.
    expect(fake.seen[2]!.body.messages!.map((m) => m.role)).toEqual(['system', 'assistant', 'user', 'assistant', 'user', 'assistant', 'tool']);
  });

  it('after gives up after the given caller turns in the state', async () => {
    const call = start([verify(false)]);
    fake.handlers.push(says('Your date of birth?'), says('Once more?'), says('Again?'));
    await call.turn('refill');
    await call.turn('no idea');
    await call.turn('still no idea');
    const outputs = await call.turn('what?');
    expect(spoken(outputs)).toBe('Let me get you a pharmacist.');
    expect(outputs.at(-1)).toEqual({ type: 'end-call', reason: 'transfer' });
    expect(fake.seen).toHaveLength(3);
  });

  it('slots filled by the model take the state\'s then; summary sends a summary; a scripted state after an LLM state', async () => {
    const placed: unknown[] = [];
    const call = start([verify(true), { name: 'place_refill', run: (args) => placed.push(args) && { ok: true } }]);
    fake.handlers.push(says('Date of birth?'), callsTools([{ id: 'c1', name: 'verify_identity', arguments: {} }]), says('Prescription number?'));
    await call.turn('refill');
    await call.turn('third of February 1980');
    fake.handlers.push(
      callsTools([{ id: 'c2', name: 'fill_slots', arguments: { rx: '1234567' } }]),
      says('The caller verified their date of birth and gave prescription 1234567.'),
      says('That is 1 2 3 4 5 6 7, shall I place it?'),
    );
    const outputs = await call.turn('one two three four five six seven');
    expect(spoken(outputs)).toBe('That is 1 2 3 4 5 6 7, shall I place it?');
    expect(call.flow.state).toBe('confirm');
    expect(call.flow.slots).toEqual({ rx: '1234567' });
    const summaryAsk = fake.seen[4]!.body.messages!.at(-1)!.content as string;
    expect(summaryAsk).toMatch(/^Summarise the conversation so far/);
    expect(fake.seen[5]!.body.messages).toEqual([
      { role: 'system', content: 'You are the pharmacy line.\n\nRead back 1234567 and place the refill.\n\nKnown so far: {"rx":"1234567"}' },
      { role: 'system', content: 'Summary of the conversation before this step: The caller verified their date of birth and gave prescription 1234567.' },
    ]);
    fake.handlers.push(callsTools([{ id: 'c3', name: 'place_refill', arguments: { rx: '1234567' } }]));
    const done = await call.turn('yes please');
    expect(placed).toEqual([{ rx: '1234567' }]);
    expect(spoken(done)).toBe('Your refill is placed. Goodbye.');
    expect(call.flow.state).toBe('done');
    expect(call.flow.expectations()).toEqual([{ kind: 'phrases', phrases: [], keywords: ['refill'] }]);
  });

  it('a tool the state does not offer gets an error result and the model goes on', async () => {
    const call = start([verify(true)]);
    fake.handlers.push(says('Date of birth?'), callsTools([{ id: 'c1', name: 'place_refill', arguments: {} }]), says('I need your date of birth first.'));
    await call.turn('refill');
    const outputs = await call.turn('just refill it');
    expect(outputs.filter((o) => o.type === 'tool-call')).toEqual([]);
    expect(JSON.parse(fake.seen[2]!.body.messages!.at(-1)!.content as string).error).toMatch(/no tool named "place_refill" in this step/);
    expect(spoken(outputs)).toBe('I need your date of birth first.');
    expect(call.flow.state).toBe('identify');
  });

  it('a discarded speculative reply never runs a non-speculative tool, and leaves the state as it was', async () => {
    let runs = 0;
    const call = start([{ name: 'verify_identity', run: () => (runs++, { ok: true, tries: 1 }) }]);
    fake.handlers.push(says('Date of birth?'));
    await call.turn('refill');
    fake.handlers.push(callsTools([{ id: 'c1', name: 'verify_identity', arguments: {} }]));
    await lastValueFrom(call.flow.respond({ history: [...history], userText: 'third of', speculative: { kept: async () => false } }).pipe(toArray()));
    expect(runs).toBe(0);
    expect(call.flow.state).toBe('identify');
    fake.handlers.push(callsTools([{ id: 'c1', name: 'verify_identity', arguments: {} }]), says('Number?'));
    await call.turn('third of February', { kept: async () => true });
    expect(runs).toBe(1);
    expect(call.flow.state).toBe('prescription');
  });
});

describe("an LLM state's scripted on: intents", () => {
  const desk = `
name: desk
start: ask
llm: { url: "http://127.0.0.1:1/v1", model: m }
intents:
  human: { examples: ["can I talk to a pharmacist", "I want to speak to a person"] }
  hours: { examples: ["when are you open", "what are your opening hours"] }
states:
  ask:
    say: How can I help?
    llm: { task: Help the caller with their prescriptions. }
    on:
      - { intent: human, reply: "Putting you through.", goto: human }
      - { intent: hours, reply: "We are open nine to five." }
  human:
    say: A pharmacist will be with you shortly.
    then: { end: transfer }
`;

  it("a caller saying an intent's example takes its transition without asking the model", async () => {
    const call = start([], desk);
    expect(call.flow.expectations()).toEqual([expect.objectContaining({ kind: 'phrases', phrases: expect.arrayContaining(['can I talk to a pharmacist', 'when are you open']) })]);
    const hours = await call.turn('when are you open');
    expect(spoken(hours)).toBe('We are open nine to five.');
    expect(call.flow.state).toBe('ask');
    const human = await call.turn('can I talk to a pharmacist please');
    expect(spoken(human)).toBe('Putting you through. A pharmacist will be with you shortly.');
    expect(human.at(-1)).toEqual({ type: 'end-call', reason: 'transfer' });
    expect(call.flow.state).toBe('human');
    expect(fake.seen).toHaveLength(0);
  });

  it('other words go to the model, as before', async () => {
    const call = start([], desk);
    fake.handlers.push(says('Which prescription is it?'));
    expect(spoken(await call.turn('I need my inhaler refilled'))).toBe('Which prescription is it?');
    expect(fake.seen).toHaveLength(1);
    expect(call.flow.state).toBe('ask');
  });
});

describe('checking a flow at load', () => {
  const bad = (patch: (text: string) => string) => {
    try {
      parseFlow(patch(flowText), 'refill.yaml');
    } catch (error) {
      return error as ScriptValidationError;
    }
    throw new Error('loaded');
  };

  it('names an unknown state, tool and MCP server with the line', () => {
    const error = bad((t) => t.replace('goto: prescription,', 'goto: prescriptoin,').replace('tools: [place_refill]', 'tools: [place_refil, crm.lookup]'));
    expect(error).toBeInstanceOf(ScriptValidationError);
    expect(error.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'states.identify.on_tool.verify_identity.goto', message: expect.stringMatching(/unknown state "prescriptoin"/), line: 22 }),
        expect.objectContaining({ path: 'states.confirm.llm.tools[0]', message: expect.stringMatching(/unknown tool "place_refil"/) }),
        expect.objectContaining({ path: 'states.confirm.llm.tools[1]', message: expect.stringMatching(/unknown MCP server "crm"/) }),
      ]),
    );
  });

  it('rejects a condition it cannot read, and on_tool for a tool the state does not offer', () => {
    const error = bad((t) => t.replace('"result.ok && result.tries < 3"', '"result.ok &&"').replace('on_tool: { place_refill: { goto: done } }', 'on_tool: { verify_identity: { goto: done } }'));
    expect(error.issues.map((i) => i.path)).toEqual(['states.identify.on_tool.verify_identity.when', 'states.confirm.on_tool.verify_identity']);
  });
});
