import { Command, InvalidArgumentError } from 'commander';
import type { TestCommandOptions } from '../options.js';
import { parsePositiveInteger } from '../parse.js';
import { addLlmOptions } from '../llm-options.js';
import { addProviderOptions } from '../provider-options.js';

function parseSeed(value: string): number {
  const seed = Number(value);
  if (!Number.isInteger(seed)) throw new InvalidArgumentError('a seed is a whole number.');
  return seed;
}

function parseUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value.replace(/\/+$/, '');
  } catch {
    // reported below
  }
  throw new InvalidArgumentError('expected an http(s) URL.');
}

export function registerTest(program: Command): void {
  const command = addProviderOptions(program.command('test'))
    .description('put simulated callers through an agent, as scenario files describe, and give a verdict per scenario')
    .argument('<paths...>', 'scenario files (YAML or JSON; Pipecat Evals scripted files too) or directories of them')
    .option('--json', 'print one JSON object per scenario run on stdout (name, file, passed, failures, turns, duration_ms, ...), then the suite report ({"report": ...})')
    .option('--junit <file>', 'write JUnit XML for CI (a testsuite per file with its figures, a testcase per run)')
    .option('--report <file>', "write the suite report as one HTML page: figures per scenario, each failing call's transcript and audio")
    .option('--runs <n>', 'run each scenario N times with seeds S..S+N-1 and report the pass rate', parsePositiveInteger, 1)
    .option('--seed <s>', "seed of the line's noise, loss and jitter (default: the scenario's conditions.seed, else 1)", parseSeed)
    .option('--grep <text>', 'only scenarios whose name contains TEXT (case-insensitive)')
    .option('--record <dir>', "write each failing call as a stereo WAV (caller left, agent right) into DIR, and every call's record (shoal calls list --data-dir DIR)")
    .option('--no-call-records', 'with --record: only the WAVs, no call records')
    .option('--concurrency <n>', 'calls run at once', parsePositiveInteger, 1)
    .option('--agent <name>', 'agent of files that name none (e.g. Pipecat Evals files): receptionist, support, echo')
    .option('--script <file>', 'scripted dialogue of files that name no agent')
    .option('--service-url <url>', 'use this speech service instead of the embedded one', parseUrl)
    .option('--api-key <key>', 'API key for --service-url (default: $SHOAL_API_KEY)')
    .option('--judge-url <url>', 'OpenAI-compatible API (ending in /v1) that checks judge: criteria; without it they are skipped', parseUrl)
    .option('--judge-model <name>', 'model asked at --judge-url (default: gpt-4o-mini)')
    .option('--judge-key <key>', 'API key for --judge-url (default: $OPENAI_API_KEY)')
    // A mistyped option or value cannot be used: exit 2 (commander's own code is 1, a failing scenario's).
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));
  addLlmOptions(command)
    .addHelpText(
      'after',
      `
--llm-url and its options make an LLM agent (as shoal agent --llm-url does) for files that name none.

Each scenario is a whole call on a virtual clock: the caller's audio goes through the line's real transport and
codec (line: phone is a Twilio media stream with 8 kHz mu-law, wideband a Telnyx one with 16 kHz L16, browser
Shoal's browser protocol), and the agent runs on the embedded speech engines. The same seed gives the same
verdict and timings. Scenario files: docs/testing-agents.md, schemas/scenario.schema.json.

Exit status: 0 every scenario passed, 1 one failed, 2 a file or option cannot be used.

Examples:
  shoal test scenarios/                          every scenario file below scenarios/
  shoal test booking.yaml --grep barge --record failed/
  shoal test suites/ --junit results.xml         for CI
  shoal test noisy.yaml --runs 10                pass rate over ten seeds
  shoal test pipecat-evals/capital.yaml --agent support`,
    )
    .action(async (paths: string[], options: TestCommandOptions) => {
      const { runTests } = await import('../run-test.js');
      process.exitCode = await runTests(paths, options);
    });
}
