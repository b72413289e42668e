import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import {
  AgentResources,
  checkScenarioSetup,
  failureReport,
  figuresLine,
  htmlReport,
  junitXml,
  loadScenarios,
  resultLine,
  reportRecord,
  resultRecord,
  ScenarioFileError,
  ScenarioRunner,
  ScenarioSetupError,
  stereoWav,
  suiteReport,
  type Scenario,
  type DefaultAgent,
  type ScenarioResult,
} from '../testing/index.js';
import type { LlmSettings } from '../testing/schema.js';
import type { TestCommandOptions } from './options.js';
import { LlmOptionError, mcpChoice, strayLlmOption } from './llm-options.js';
import { ProviderSetupError, speechChoice, type SpeechChoice } from './speech-providers.js';
import { openCallRecords } from './call-records.js';

export const exitCodes = { passed: 0, failed: 1, unusable: 2 } as const;

/** `shoal test`: loads the scenarios, runs them, prints a line each and a summary; resolves to the exit status. */
export async function runTests(paths: string[], options: TestCommandOptions): Promise<number> {
  const note = (line: string) => process.stderr.write(`${line}\n`);
  let scenarios: Scenario[];
  try {
    scenarios = await loadScenarios(paths);
  } catch (error) {
    if (error instanceof ScenarioFileError) {
      for (const line of error.message.split('\n')) note(`shoal test: ${line}`);
      return exitCodes.unusable;
    }
    throw error;
  }
  if (options.grep) {
    const wanted = options.grep.toLowerCase();
    scenarios = scenarios.filter((scenario) => scenario.name.toLowerCase().includes(wanted));
  }
  if (scenarios.length === 0) {
    note(`shoal test: no scenario${options.grep ? ` matches --grep ${options.grep}` : ` in ${paths.join(' ')}`}`);
    return exitCodes.unusable;
  }
  const stray = strayLlmOption(options);
  if (stray) {
    note(`shoal test: ${stray}`);
    return exitCodes.unusable;
  }
  let llm: LlmSettings | undefined;
  try {
    llm = options.llmUrl ? await llmOf(options, options.llmUrl) : undefined;
  } catch (error) {
    if (!(error instanceof LlmOptionError)) throw error;
    note(`shoal test: ${error.message}`);
    return exitCodes.unusable;
  }
  const defaultAgent = {
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.script ? { script: options.script } : {}),
    ...(llm ? { llm } : {}),
  };
  // The flows' and --mcp's MCP servers start once, here, and stop when the run ends, so that the process exits.
  const resources = new AgentResources((server, tools) => note(`shoal test: MCP server ${server}: ${tools.join(', ') || 'no tools'}`));
  try {
    return await runScenarios(scenarios, options, defaultAgent, resources);
  } finally {
    await resources.close();
  }
}

async function runScenarios(scenarios: Scenario[], options: TestCommandOptions, defaultAgent: DefaultAgent, resources: AgentResources): Promise<number> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const note = (line: string) => process.stderr.write(`${line}\n`);
  try {
    for (const scenario of scenarios) await checkScenarioSetup(scenario, defaultAgent, resources);
  } catch (error) {
    if (error instanceof ScenarioSetupError) {
      for (const line of error.message.split('\n')) note(`shoal test: ${line}`);
      return exitCodes.unusable;
    }
    throw error;
  }
  let speech: SpeechChoice | undefined;
  try {
    speech = options.stt || options.tts ? speechChoice(options) : undefined;
  } catch (error) {
    if (error instanceof ProviderSetupError) {
      note(`shoal test: ${error.message}`);
      return exitCodes.unusable;
    }
    throw error;
  }
  const runs = scenarios.flatMap((scenario) => Array.from({ length: options.runs }, (_, run) => ({ scenario, seed: seedOf(scenario, options, run) })));
  if (!options.json) note(`shoal test: ${scenarios.length} scenario${scenarios.length > 1 ? 's' : ''}${options.runs > 1 ? ` × ${options.runs} runs` : ''}; starting the speech engines…`);
  const started = performance.now();
  // With --record DIR, every call's record is kept there too (`shoal calls list --data-dir DIR`).
  const records = options.record ? await openCallRecords({ dataDir: options.record, callRecords: options.callRecords }, (error) => note(`call record not written: ${String(error)}`)) : undefined;
  const runner = await ScenarioRunner.open({
    ...(records ? { records: records.records } : {}),
    ...(speech ? { speech: { stt: speech.stt, tts: speech.tts } } : {}),
    ...(options.serviceUrl ? { service: { url: options.serviceUrl, apiKey: options.apiKey ?? process.env['SHOAL_API_KEY'] ?? '' } } : {}),
    ...(options.judgeUrl ? { judge: { url: options.judgeUrl, ...(options.judgeModel ? { model: options.judgeModel } : {}), ...(options.judgeKey ? { key: options.judgeKey } : {}) } } : {}),
    defaultAgent,
    resources,
    concurrency: options.concurrency,
  });
  const results: ScenarioResult[] = [];
  let stopped: unknown;
  try {
    let next = 0;
    const worker = async () => {
      while (next < runs.length) {
        const { scenario, seed } = runs[next++]!;
        const result = await runner.run(scenario, { seed });
        results.push(result);
        if (options.json) say(JSON.stringify(resultRecord(result)));
        else {
          say(resultLine(result));
          if (!result.passed) say(failureReport(result));
        }
        if (!result.passed && options.record) note(`  recorded ${await record(result, options.record)}`);
      }
    };
    // Every worker settles (its call hung up) before the stack closes, even when one of them stops on an error.
    const settled = await Promise.allSettled(Array.from({ length: Math.min(options.concurrency, runs.length) }, worker));
    stopped = settled.find((outcome) => outcome.status === 'rejected')?.reason;
  } finally {
    await runner.close();
    await records?.close();
  }
  if (stopped !== undefined) throw stopped;
  if (options.junit) await writeAtomically(options.junit, junitXml(results));
  if (options.report) await writeAtomically(options.report, htmlReport(results));
  const failed = results.filter((result) => !result.passed);
  if (options.json) say(JSON.stringify(reportRecord(suiteReport(results))));
  else say(summary(results, options.runs, performance.now() - started));
  return failed.length > 0 ? exitCodes.failed : exitCodes.passed;
}

async function llmOf(options: TestCommandOptions, url: string): Promise<LlmSettings> {
  const key = options.llmKey ?? options.llmKeyFile;
  return {
    url,
    ...(options.llmModel ? { model: options.llmModel } : {}),
    ...(key ? { key } : {}),
    ...(options.instructions ? { instructions: resolve(options.instructions) } : {}),
    ...(options.tools ? { tools: resolve(options.tools) } : {}),
    ...(options.greeting !== undefined ? { greeting: options.greeting } : {}),
    ...(options.mcp ? { mcp: (await mcpChoice(options)).servers } : {}),
    ...(options.mcpTools ? { mcp_tools: options.mcpTools } : {}),
  };
}

function seedOf(scenario: Scenario, options: TestCommandOptions, run: number): number {
  return (options.seed ?? scenario.conditions.seed ?? 1) + run;
}

function summary(results: readonly ScenarioResult[], runs: number, wallMs: number): string {
  const passed = results.filter((result) => result.passed).length;
  const callMs = results.reduce((sum, result) => sum + result.durationMs, 0);
  const report = suiteReport(results);
  const lines = [
    '',
    `${passed === results.length ? '✓' : '✗'} ${passed}/${results.length} ${runs > 1 ? 'runs' : 'scenarios'} passed in ${(wallMs / 1000).toFixed(1)} s ` +
      `(${(callMs / 1000).toFixed(1)} s of calls; the engines' start included)`,
    `  suite: ${figuresLine(report.suite)}`,
  ];
  if (runs > 1) for (const scenario of report.scenarios) lines.push(`  ${scenario.name}: ${figuresLine(scenario)}`);
  const skipped = report.suite.judged.skipped;
  if (skipped) lines.push(`  ${skipped} judge criteria skipped (give --judge-url to check them)`);
  return lines.join('\n');
}

async function record(result: ScenarioResult, dir: string): Promise<string> {
  const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'scenario';
  const from = result.file ? `${slug(basename(result.file, extname(result.file)))}--` : '';
  const path = join(dir, `${from}${slug(result.name)}--seed-${result.seed}.wav`);
  await writeAtomically(path, stereoWav(result.log!));
  return path;
}

/** Written beside the target first, so a failure leaves no half-written file. */
async function writeAtomically(path: string, content: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  await writeFile(partial, content);
  await rename(partial, path);
}
