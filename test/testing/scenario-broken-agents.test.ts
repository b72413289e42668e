/**
 * The shipped suites bite: each deliberately broken agent (test/broken-agents) fails the scenario of a shipped
 * suite that guards against its regression, with the failure that names it. The healthy agents pass the same
 * scenarios in test/testing/scenario-suites.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedAgentStack, type EmbeddedAgentStack } from '../../src/agent/index.js';
import { loadScenarios, ScenarioRunner } from '../../src/testing/index.js';
import { brokenAgents } from '../broken-agents/index.js';

let stack: EmbeddedAgentStack;
let runner: ScenarioRunner;
beforeAll(async () => {
  stack = await createEmbeddedAgentStack({});
  runner = await ScenarioRunner.open({ stack });
});
afterAll(async () => {
  await runner?.close();
  await stack?.close();
});

describe('broken agents fail the shipped suites', () => {
  for (const broken of brokenAgents) {
    it(`${broken.name}: caught by ${broken.suite}`, async () => {
      const scenario = (await loadScenarios(broken.suite)).find((candidate) => candidate.name === broken.scenario);
      expect(scenario, `no scenario "${broken.scenario}" in ${broken.suite}`).toBeDefined();
      const setUp = await broken.setUp(scenario!, stack);
      try {
        const result = await runner.run(setUp.scenario, setUp);
        expect(result.passed).toBe(false);
        expect(result.failures.map((failure) => failure.message).join('\n')).toMatch(broken.caught);
      } finally {
        await setUp.close?.();
      }
    }, 180_000);
  }
});
