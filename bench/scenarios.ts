/**
 * Scenario runner benchmark: prints one JSON object.
 * - speed: the phone-line suite (test/scenarios/parcel-line-phone.yaml: 8 kHz mu-law, noise, loss, jitter) run
 *   `--repeat` times, one call at a time: call time over wall time (speed-up over real time), and call time over
 *   the CPU time of all the process's threads (`one_core_speedup`: the speed-up on one free core), with where that
 *   CPU went (the main thread, the busiest worker thread, which is the recognizer's, the rest); then every shipped
 *   suite with `--concurrency` calls at once (default 2): scenarios per minute. All on the embedded engines started
 *   once (their start-up is reported apart);
 * - determinism: the phone-line runs compared: the same verdicts, failures, voice-to-voice figures and call audio
 *   (sha256 of the caller's and the agent's tracks) each time;
 * - broken agents: the share of test/broken-agents caught by the shipped suites.
 * Run: npx tsx bench/scenarios.ts [--repeat N] [--concurrency N] [--quick]   (--quick: 3 repeats instead of 10)
 * On one core: taskset -c 0 npx tsx bench/scenarios.ts --quick (`cores_allowed` then says 1).
 */
import { createHash } from 'node:crypto';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { createEmbeddedAgentStack, percentile } from '../src/agent/index.js';
import { loadScenarios, ScenarioRunner, type Scenario, type ScenarioResult } from '../src/testing/index.js';
import { brokenAgents, runShipped } from '../test/broken-agents/index.js';
import { threadCpuMs, threadCpuSince } from './thread-cpu.js';

const quick = process.argv.includes('--quick');
const repeatArg = process.argv.indexOf('--repeat');
const repeats = repeatArg > 0 ? Number(process.argv[repeatArg + 1]) : quick ? 3 : 10;
const concurrencyArg = process.argv.indexOf('--concurrency');
const concurrency = concurrencyArg > 0 ? Number(process.argv[concurrencyArg + 1]) : 2;
if (!Number.isInteger(repeats) || repeats < 1 || !Number.isInteger(concurrency) || concurrency < 1) {
  process.stderr.write('usage: npx tsx bench/scenarios.ts [--repeat N] [--concurrency N] [--quick]\n');
  process.exit(2);
}
const phoneSuite = 'test/scenarios/parcel-line-phone.yaml';
const suites = ['test/scenarios', 'test/scenarios-llm'];
const round = (value: number | undefined, places = 2) => (value === undefined ? null : Number(value.toFixed(places)));
const loadAverage = () => loadavg().map((value) => round(value));

const progress = (line: string) => process.stderr.write(`${line}\n`);
const loadBefore = loadAverage();
// As shoal test --concurrency N starts it: with N > 1, each call's recognition on a worker thread of its own.
const stack = await createEmbeddedAgentStack(concurrency > 1 ? { recognizerCallsPerWorker: 1 } : {});
const startup = performance.now();
const runner = await ScenarioRunner.open({ stack });
// The engines start lazily: one short call warms them, so that no timed run pays for it.
const [warmUp] = await loadScenarios('test/scenarios/echo.yaml');
await runner.run(warmUp!);
const startupMs = performance.now() - startup;

/** Runs a scenario as the shipped suite test does (an LLM scenario on the healthy booking model). */
const run = (scenario: Scenario) => runShipped(runner, scenario);

/** `wallMs`: the runs' wall time, when they overlapped (several calls at once); else the sum of their own. */
function speed(results: readonly ScenarioResult[], wallMs = results.reduce((sum, result) => sum + result.wallMs, 0)) {
  const callMs = results.reduce((sum, result) => sum + result.durationMs, 0);
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

/** The call's audio as the caller sent it and as the caller heard the agent, hashed. */
const audioHash = (result: ScenarioResult) =>
  createHash('sha256')
    .update(new Uint8Array(result.log?.callerTrack.buffer ?? new ArrayBuffer(0)))
    .update(new Uint8Array(result.log?.agentTrack.buffer ?? new ArrayBuffer(0)))
    .digest('hex');

// Phone line, repeated, one call at a time: speed, CPU and determinism.
const phone = await loadScenarios(phoneSuite);
const phoneRuns: ScenarioResult[][] = [];
const cpuBefore = process.cpuUsage();
const threadsBefore = threadCpuMs();
for (let i = 0; i < repeats; i++) {
  const results: ScenarioResult[] = [];
  for (const scenario of phone) results.push(await run(scenario));
  phoneRuns.push(results);
  progress(`phone line run ${i + 1}/${repeats}: ${results.map((r) => `${r.passed ? 'pass' : 'FAIL'} ${r.speedup.toFixed(1)}x`).join(', ')}`);
}
const phoneCpu = process.cpuUsage(cpuBefore);
const phoneThreads = threadCpuSince(threadsBefore);
const phoneCallS = phoneRuns.flat().reduce((sum, result) => sum + result.durationMs, 0) / 1000;
const phoneCpuMs = (phoneCpu.user + phoneCpu.system) / 1000;
const perCallSecond = (ms: number) => round(ms / phoneCallS, 1);
const fingerprints = new Set(phoneRuns.map((results) => results.map(outcome).join('\n')));
const audioHashes = new Set(phoneRuns.map((results) => results.map(audioHash).join(',')));
const verdicts = new Set(phoneRuns.map((results) => results.map((result) => result.passed).join(',')));
const v2vs = new Set(phoneRuns.map((results) => JSON.stringify(results.map((result) => result.v2v))));

// Every shipped suite once, `concurrency` calls at once (as shoal test --concurrency runs them).
const suiteScenarios = await loadScenarios(suites);
const suiteResults: ScenarioResult[] = [];
const suiteStarted = performance.now();
let nextScenario = 0;
const suiteWorker = async () => {
  while (nextScenario < suiteScenarios.length) {
    const scenario = suiteScenarios[nextScenario++]!;
    const result = await run(scenario);
    suiteResults.push(result);
    progress(`${result.passed ? '✓' : '✗'} ${scenario.file}: ${scenario.name} (${result.speedup.toFixed(1)}x)`);
    for (const failure of result.failures) progress(`    step ${failure.step ?? 'call'}: ${failure.message}`);
  }
};
await Promise.all(Array.from({ length: Math.min(concurrency, suiteScenarios.length) }, suiteWorker));
const suite = { concurrency, ...speed(suiteResults, performance.now() - suiteStarted) };

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
      cores_allowed: availableParallelism(),
      phone_line: {
        suite: phoneSuite,
        ...speed(phoneRuns.flat()),
        cpu_ms_per_call_s: perCallSecond(phoneCpuMs),
        one_core_speedup: round((phoneCallS * 1000) / phoneCpuMs),
        cpu_ms_per_call_s_by_thread: { main: perCallSecond(phoneThreads.main), busiest_worker: perCallSecond(phoneThreads.busiest_worker), other: perCallSecond(phoneThreads.other) },
      },
      all_suites: suite,
      determinism: {
        suite: phoneSuite,
        runs: repeats,
        identical: fingerprints.size === 1,
        identical_verdicts: verdicts.size === 1,
        identical_v2v: v2vs.size === 1,
        identical_audio: audioHashes.size === 1,
        audio_sha256: phoneRuns[0]!.map((result) => audioHash(result).slice(0, 16)),
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
