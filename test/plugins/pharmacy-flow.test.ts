/**
 * The pharmacy refill flow (agents/pharmacy) on its model double: the shipped suite passes, through the real
 * engines on a virtual clock, and catches a broken copy of the flow that lets a caller skip identification.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowDialogue, parseFlow } from '../../plugins/index.js';
import { loadScenarios, ScenarioRunner, type Scenario } from '../../src/testing/index.js';
import { startPharmacyModel } from '../support/pharmacy-model.js';

const flowFile = 'agents/pharmacy/pharmacy.yaml';
const scenarios = await loadScenarios('agents/pharmacy/scenarios.yaml');
let model: Awaited<ReturnType<typeof startPharmacyModel>>;
let runner: ScenarioRunner;
beforeAll(async () => {
  model = await startPharmacyModel();
  runner = await ScenarioRunner.open();
});
afterAll(async () => {
  await runner?.close();
  await model?.close();
});

/** The flow with its model and http tools on the double's port; `edit` changes the text first (a broken copy). */
const flowOnDouble = (edit: (text: string) => string = (text) => text) => {
  const text = edit(readFileSync(flowFile, 'utf8')).replaceAll('http://127.0.0.1:8091', new URL(model.baseUrl).origin);
  const flow = parseFlow(text, flowFile);
  return () => new FlowDialogue(flow);
};
const named = (name: string): Scenario => scenarios.find((s) => s.name === name)!;

describe('the pharmacy refill flow', () => {
  for (const scenario of scenarios) {
    it(scenario.name, async () => {
      model.refills.length = 0;
      const result = await runner.run(scenario, { dialogue: flowOnDouble() });
      expect(result.failures).toEqual([]);
      if (scenario.name.startsWith('refills')) expect(model.refills).toEqual(['1234567']);
      else expect(model.refills).toEqual([]);
    }, 120_000);
  }

  it('catches a broken copy that offers place_refill before identification', async () => {
    const broken = flowOnDouble((text) => text.replace('tools: [verify_identity]', 'tools: [verify_identity, place_refill]'));
    model.refills.length = 0;
    const result = await runner.run(named('a caller who tries to skip identification is asked for the date of birth'), { dialogue: broken });
    expect(result.passed).toBe(false);
    expect(JSON.stringify(result.failures)).toMatch(/not_tool place_refill: the agent called it/);
    expect(model.refills).toEqual(['1234567']);
  }, 120_000);
});
