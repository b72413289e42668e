import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineScenario, loadScenarios, ScenarioRunner, type Scenario } from '../../src/testing/index.js';
import { callerModel, FakeOpenAiServer, says } from '../support/fake-openai-server.js';
import { EchoDialogue } from '../../plugins/index.js';

let runner: ScenarioRunner;
const model = new FakeOpenAiServer();
beforeAll(async () => {
  await model.start();
  runner = await ScenarioRunner.open();
}, 120_000);
afterAll(async () => {
  await runner?.close();
  await model.close();
});

/** The shipped example's scenarios (examples/scenarios/simulated-caller.yaml), their caller model the double here. */
async function exampleScenarios(): Promise<Scenario[]> {
  return (await loadScenarios('examples/scenarios/simulated-caller.yaml')).map(
    (scenario): Scenario => ({ ...scenario, caller: { ...scenario.caller, simulated: { ...scenario.caller.simulated!, llm: { url: model.baseUrl, model: 'caller-model' } } } }),
  );
}

describe('a simulated caller', () => {
  it('speaks its model\'s lines over the line, hears the agent as recognised, and ends when its model says the goal is reached (the shipped example)', async () => {
    model.reset();
    model.fallback = callerModel(['when are you open'], /eleven/i);
    const scenario = (await exampleScenarios())[0]!;
    expect(scenario.expect).toMatchObject({ goal: 'reached', says: '/noon/i', not_tool: 'book_table' });
    const result = await runner.run(scenario, { seed: 3 });
    expect(result.error).toBeUndefined();
    expect(result.failures).toEqual([]);
    const conversation = result.log!.conversation!;
    expect(conversation.ending).toBe('goal_reached');
    expect(conversation.turns.map((turn) => turn.said)).toEqual(['when are you open', undefined]);
    // What the caller's model was told is the agent's audio as the recogniser heard it, not the agent's text.
    const told = model.seen.map((request) => String(request.body.messages!.at(-1)!['content']));
    const agentSaid = result.log!.turns.map((turn) => turn.report!.agentText);
    expect(told).toHaveLength(2);
    expect(told[1]).toMatch(/eleven/i);
    expect(told).not.toContain(agentSaid[1]);
    expect(told[1]).toBe(conversation.turns[1]!.heard);
    // The agent heard the caller's spoken line through the phone line.
    expect(result.log!.turns[1]!.report!.userText).toMatch(/open/);
    expect(model.seen[0]!.body.model).toBe('caller-model');
    expect(model.seen[0]!.body['seed']).toBe(3);
    expect(String(model.seen[0]!.body.messages![0]!['content'])).toContain('find out when the restaurant opens');
    expect(result.turns).toBe(2);
    expect(result.skipped).toEqual([{ criterion: 'the agent gives the opening hours without being asked twice' }]);
    expect(result.v2v.filter((entry) => entry.step === 0)).toHaveLength(1);
    expect(result.stats).toMatchObject({ callerLines: 1, callerEnding: 'goal_reached', toolCalls: [] });
  }, 120_000);

  it('fails a scenario whose goal is never reached: the caller stops at max_turns', async () => {
    model.reset();
    model.fallback = callerModel(['when are you open'], /eleven/i);
    const scenario = defineScenario({
      name: 'an agent that never gives the hours',
      line: 'wideband',
      caller: { goal: 'find out when the restaurant opens', llm: { url: model.baseUrl }, max_turns: 2 },
      expect: { goal: 'reached' },
    });
    const result = await runner.run(scenario, { dialogue: () => new EchoDialogue({ greeting: 'Echo here.' }) });
    expect(result.error).toBeUndefined();
    expect(result.log!.conversation!.turns.map((turn) => turn.said)).toEqual(['when are you open', 'when are you open', undefined]);
    expect(result.failures).toEqual([{ message: 'goal reached: the caller\'s conversation ended with max_turns' }]);
    expect(model.seen).toHaveLength(2);
  }, 120_000);

  it('ends on a [GOAL FAILED] marker from a model without tool calls, then runs the steps that follow', async () => {
    model.reset();
    model.handlers.push(says('Never mind. [GOAL FAILED]'));
    const scenario = defineScenario({
      name: 'gives up, then hangs up',
      agent: 'echo',
      line: 'wideband',
      caller: { goal: 'get a refund', llm: { url: model.baseUrl } },
      steps: [{ say: 'goodbye', expect: { action: 'end_call' } }],
      expect: { goal: 'failed' },
    });
    const result = await runner.run(scenario);
    expect(result.failures).toEqual([]);
    expect(result.log!.conversation).toMatchObject({ ending: 'goal_failed', turns: [{ said: 'Never mind.' }] });
  }, 120_000);

  it('runs the steps that follow its conversation (the shipped example\'s second scenario)', async () => {
    model.reset();
    model.fallback = callerModel(['when are you open'], /eleven/i);
    const scenario = (await exampleScenarios())[1]!;
    const result = await runner.run(scenario);
    expect(result.failures).toEqual([]);
    expect(result.log!.conversation!.ending).toBe('goal_reached');
    expect(result.log!.windows[0]!.action).toBe('said "thank you goodbye"');
  }, 120_000);
});
