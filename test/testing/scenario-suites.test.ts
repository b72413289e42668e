/**
 * The shipped scenario suites (test/scenarios: the ready-made agents and the example scripts; test/scenarios-llm:
 * an LLM agent on the booking model double) pass, through the library API as an application's own tests would
 * run them. Each scenario is a whole call on a virtual clock through the real engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarios, ScenarioRunner, type Scenario } from '../../src/testing/index.js';
import { runShipped } from '../broken-agents/index.js';

const scenarios = await loadScenarios(['test/scenarios', 'test/scenarios-llm']);
let runner: ScenarioRunner;
beforeAll(async () => {
  runner = await ScenarioRunner.open();
});
afterAll(() => runner?.close());

const run = (scenario: Scenario) => runShipped(runner, scenario);

describe('shipped scenario suites', () => {
  it('cover every ready-made agent and example script', () => {
    const agents = new Set(scenarios.map((scenario) => scenario.agent ?? scenario.script?.replace(/^.*\//, '') ?? 'llm'));
    expect([...agents].sort()).toEqual(['booking.yaml', 'echo', 'llm', 'parcel-line.yaml', 'receptionist', 'support']);
  });

  for (const scenario of scenarios) {
    it(`${scenario.file}: ${scenario.name}`, async () => {
      const result = await run(scenario);
      expect(result.failures).toEqual([]);
      expect(result.passed).toBe(true);
    }, 180_000);
  }
});
