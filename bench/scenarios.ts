/**
 * Scenario runner benchmark: prints one JSON object.
 * - speed: the phone-line suite (test/scenarios/parcel-line-phone.yaml: 8 kHz mu-law, noise, loss, jitter) run
 *   `--repeat` times, and every shipped suite once: call time over wall time (speed-up over real time), scenarios
 *   per minute, on the embedded engines started once (their start-up is reported apart);
 * - determinism: the phone-line runs compared: the same verdicts, failures and voice-to-voice figures each time;
 * - broken agents: the share of test/broken-agents caught by the shipped suites.
 * Run: npx tsx bench/scenarios.ts [--repeat N] [--quick]   (--quick: 3 repeats, no full suite)
 */
import { cpus, loadavg } from 'node:os';
import { createEmbeddedAgentStack, percentile } from '../src/agent/index.js';
import { loadScenarios, ScenarioRunner, type Scenario, type ScenarioResult } from '../src/testing/index.js';
import { brokenAgents, runShipped } from '../test/broken-agents/index.js';

const quick = process.argv.includes('--quick');
const repeatArg = process.argv.indexOf('--repeat');
const repeats = repeatArg > 0 ? Number(process.argv[repeatArg + 1]) : quick ? 3 : 10;
const phoneSuite = 'test/scenarios/parcel-line-phone.yaml';
const suites = ['test/scenarios', 'test/scenarios-llm'];
const round = (value: number | undefined, places = 2) => (value === undefined ? null : Number(value.toFixed(places)));
const loadAverage = () => loadavg().map((value) => round(value));

const progress = (line: string) => process.stderr.write(`${line}\n`);
const loadBefore = loadAverage();
const stack = await createEmbeddedAgentStack({});
const startup = performance.now();
const runner = await ScenarioRunner.open({ stack });
// The engines start lazily: one short call warms them, so that no timed run pays for it.
const [warmUp] = await loadScenarios('test/scenarios/echo.yaml');
await runner.run(warmUp!);
const startupMs = performance.now() - startup;

/** Runs a scenario as the shipped suite test does (an LLM scenario on the healthy booking model). */
const run = (scenario: Scenario) => runShipped(runner, scenario);

function speed(results: readonly ScenarioResult[]) {
  const callMs = results.reduce((sum, result) => sum + result.durationMs, 0);
  const wallMs = results.reduce((sum, result) => sum + result.wallMs, 0);
  return {
    scenarios: results.length,
    passed: results.filter((result) => result.passed).length,
    call_s: round(callMs / 1000, 1),
    wall_s: round(wallMs / 1000, 1),
    speedup: round(callMs / wallMs),
    speedup_p50: round(percentile(results.map((result) => result.speedup), 50)),
    scenarios_per_minute: round((results.length * 60_000) / wallMs, 1),
  };
}

/** What must be the same on every run of a scenario: its verdict, failures, turns, call length and timings. */
const outcome = (result: ScenarioResult) =>
  JSON.stringify({ passed: result.passed, failures: result.failures, turns: result.turns, durationMs: result.durationMs, v2v: result.v2v });

// Phone line, repeated: speed and determinism.
const phone = await loadScenarios(phoneSuite);
const phoneRuns: ScenarioResult[][] = [];
for (let i = 0; i < repeats; i++) {
  const results: ScenarioResult[] = [];
  for (const scenario of phone) results.push(await run(scenario));
  phoneRuns.push(results);
  progress(`phone line run ${i + 1}/${repeats}: ${results.map((r) => `${r.passed ? 'pass' : 'FAIL'} ${r.speedup.toFixed(1)}x`).join(', ')}`);
}
const fingerprints = new Set(phoneRuns.map((results) => results.map(outcome).join('\n')));
const verdicts = new Set(phoneRuns.map((results) => results.map((result) => result.passed).join(',')));
const v2vs = new Set(phoneRuns.map((results) => JSON.stringify(results.map((result) => result.v2v))));

// Every shipped suite once.
let suite: ReturnType<typeof speed> | null = null;
if (!quick) {
  const results: ScenarioResult[] = [];
  for (const scenario of await loadScenarios(suites)) {
    const result = await run(scenario);
    results.push(result);
    progress(`${result.passed ? '✓' : '✗'} ${scenario.file}: ${scenario.name} (${result.speedup.toFixed(1)}x)`);
    for (const failure of result.failures) progress(`    step ${failure.step ?? 'call'}: ${failure.message}`);
  }
  suite = speed(results);
}

// Broken agents against the suites that guard against them.
const caught: Array<{ agent: string; suite: string; caught: boolean; failures: string[] }> = [];
for (const broken of brokenAgents) {
  const scenario = (await loadScenarios(broken.suite)).find((candidate) => candidate.name === broken.scenario);
  if (!scenario) throw new Error(`no scenario "${broken.scenario}" in ${broken.suite}`);
  const setUp = await broken.setUp(scenario, stack);
  try {
    const result = await runner.run(setUp.scenario, setUp);
    const messages = result.failures.map((failure) => failure.message);
    caught.push({ agent: broken.name, suite: broken.suite, caught: !result.passed && broken.caught.test(messages.join('\n')), failures: messages });
    progress(`broken: ${broken.name}: ${result.passed ? 'NOT caught' : 'caught'}`);
  } finally {
    await setUp.close?.();
  }
}

await runner.close();
await stack.close();

process.stdout.write(
  `${JSON.stringify(
    {
      bench: 'scenarios',
      date: new Date().toISOString(),
      cores: cpus().length,
      load_average_before: loadBefore,
      load_average_after: loadAverage(),
      engines_startup_ms: Math.round(startupMs),
      phone_line: { suite: phoneSuite, ...speed(phoneRuns.flat()) },
      all_suites: suite,
      determinism: {
        suite: phoneSuite,
        runs: repeats,
        identical: fingerprints.size === 1,
        identical_verdicts: verdicts.size === 1,
        identical_v2v: v2vs.size === 1,
        distinct_outcomes: fingerprints.size,
        v2v_ms: phoneRuns[0]!.map((result) => result.v2v.map((entry) => Math.round(entry.ms))),
      },
      broken_agents: {
        total: caught.length,
        caught: caught.filter((entry) => entry.caught).length,
        share: round(caught.filter((entry) => entry.caught).length / caught.length),
        each: caught.map(({ agent, suite: file, caught: was }) => ({ agent, suite: file, caught: was })),
      },
    },
    null,
    2,
  )}\n`,
);
