/**
 * Deliberately broken agents, each a regression a shipped scenario suite (test/scenarios) must catch: run the
 * named scenario against the broken agent instead of the suite's own, and it must fail with `caught`.
 * test/testing/scenario-broken-agents.test.ts runs them; bench/scenarios.ts counts how many are caught.
 */
import type { EmbeddedAgentStack } from '../../src/agent/index.js';
import { defaults as modeDefaults } from '../../src/agent/modes.js';
import type { AgentChoice, Scenario, ScenarioResult, ScenarioRunner } from '../../src/testing/index.js';
import { loadScriptedDialogue } from '../../plugins/index.js';
import { startBookingModel } from './booking-model.js';
import { receptionistSkippingConfirmation, supportNeverTransferring } from './scripts.js';

/** A broken agent set up for one run: what the runner gets instead of the scenario's agent. */
export interface BrokenRun extends AgentChoice {
  /** The scenario as run (e.g. pointed at the broken model's URL). */
  scenario: Scenario;
  close?(): Promise<void>;
}

export interface BrokenAgent {
  /** What is wrong with it. */
  name: string;
  /** The shipped suite and the scenario in it that catch it. */
  suite: string;
  scenario: string;
  /** A failure message of that scenario when run against it. */
  caught: RegExp;
  setUp(scenario: Scenario, stack: EmbeddedAgentStack): Promise<BrokenRun>;
}

/** Points an LLM scenario at a model double; `bookings` as in `startBookingModel`. */
export async function withBookingModel(scenario: Scenario, bookings: number): Promise<BrokenRun> {
  const model = await startBookingModel(bookings);
  return { scenario: { ...scenario, llm: { ...scenario.llm!, url: model.baseUrl } }, close: () => model.close() };
}

/** Runs a shipped scenario as the suites do: an LLM scenario talks to the healthy booking model (one booking). */
export async function runShipped(runner: ScenarioRunner, scenario: Scenario): Promise<ScenarioResult> {
  if (!scenario.llm) return runner.run(scenario);
  const model = await withBookingModel(scenario, 1);
  try {
    return await runner.run(model.scenario);
  } finally {
    await model.close?.();
  }
}

const parcelLine = () => loadScriptedDialogue('examples/scripts/parcel-line.yaml');

export const brokenAgents: BrokenAgent[] = [
  {
    name: 'a script that skips its confirmation (books without "Does that sound good?")',
    suite: 'test/scenarios/receptionist.yaml',
    scenario: 'books a table after the caller corrects the time',
    caught: /not_says \/booked\/i|says I have a table/,
    setUp: async (scenario) => ({ scenario, dialogue: receptionistSkippingConfirmation }),
  },
  {
    name: 'a transfer that never happens (says "transferring you", calls no transfer_call)',
    suite: 'test/scenarios/support.yaml',
    scenario: 'transfers a balance question to a human agent',
    caught: /action transfer: the agent hung up without a transfer/,
    setUp: async (scenario) => ({ scenario, dialogue: supportNeverTransferring }),
  },
  {
    name: 'an LLM that calls its booking tool twice',
    suite: 'test/scenarios-llm/booking-model.yaml',
    scenario: 'books once after the caller confirms',
    caught: /tool book_table.*times 1/,
    setUp: (scenario) => withBookingModel(scenario, 2),
  },
  {
    name: 'low-latency mode given the balanced timings (500 ms endpoint, no early replies)',
    suite: 'test/scenarios/parcel-line.yaml',
    scenario: 'answers quickly in low-latency mode',
    caught: /within_ms \d+: the agent answered after/,
    setUp: async (scenario, stack) => ({
      scenario,
      agent: stack.agentFor(
        parcelLine(),
        { mode: 'low-latency', modeSettings: modeDefaults.balanced },
      ),
    }),
  },
  {
    name: 'barge-in switched off (the agent talks over the caller)',
    suite: 'test/scenarios/parcel-line.yaml',
    scenario: 'keys the code, then stops the menu by talking over it',
    caught: /interrupted: the agent went on with its turn \("[^"]+"\) to the end, \d+ ms over the caller/,
    setUp: async (scenario, stack) => ({
      scenario,
      agent: stack.agentFor(parcelLine(), {
        mode: scenario.mode,
        interruption: { enabled: false },
      }),
    }),
  },
  {
    name: 'a silence timer that never fires (the silent caller is never asked again)',
    suite: 'test/scenarios/parcel-line.yaml',
    scenario: 'a silent caller hears the prompt again, then a goodbye',
    caught: /says Please say or key your four digit code\.: no reply/,
    setUp: async (scenario, stack) => ({
      scenario,
      agent: stack.agentFor(parcelLine(), {
        mode: scenario.mode,
        userSilenceTimeoutMs: 10 * 60_000,
      }),
    }),
  },
];
