import type { EmbeddedAgentStack, EmbeddedStackOptions } from '../agent/index.js';
import { createEmbeddedAgentStack } from '../agent/index.js';
import { scenarioDialogue, ScenarioSetupError, type AgentChoice, type DefaultAgent } from './agent-choice.js';
import { CallDriver, type StepClips } from './call-driver.js';
import type { CallLog } from './call-log.js';
import { CallerVoice, type Clip } from './caller-audio.js';
import { checkCall, type Failure } from './checks.js';
import { judge, type JudgeOptions } from './judge.js';
import { TraceWitness } from './trace-witness.js';
import type { Scenario } from './scenario.js';

/** What one scenario's call came to. `--json` prints these fields (snake_case) one object per line. */
export interface ScenarioResult {
  name: string;
  file?: string;
  passed: boolean;
  failures: Failure[];
  /** The agent's turns in the call, the greeting included. */
  turns: number;
  /** Length of the call on its clock, ms. */
  durationMs: number;
  /** Wall-clock time the call took to run, ms. */
  wallMs: number;
  /** durationMs / wallMs. */
  speedup: number;
  seed: number;
  /** Voice-to-voice of each step with a caller's voice and a reply, ms. */
  v2v: Array<{ step: number; ms: number }>;
  /** `judge:` criteria not checked (no judge URL). */
  skipped: Array<{ step?: number; criterion: string }>;
  /** Everything the call left behind (transcript, events, audio tracks). */
  log?: CallLog;
}

export interface RunnerOptions {
  /** Run on this stack instead of starting one (`close()` then leaves it open). */
  stack?: EmbeddedAgentStack;
  /** A running speech service instead of the embedded one. */
  service?: { url: string; apiKey: string };
  /** The stack's recognisers and synthesisers (`--stt`/`--tts`); default: the stack's. */
  speech?: Pick<EmbeddedStackOptions, 'stt' | 'tts'>;
  judge?: JudgeOptions;
  /** The agent of scenarios that name none (e.g. Pipecat Evals files): a ready-made agent's name or a script file. */
  defaultAgent?: DefaultAgent;
}

export interface RunOptions extends AgentChoice {
  /** Seed of the line's conditions; the scenario's `conditions.seed`, else 1. */
  seed?: number;
  /** Where `judge:` criteria go for this run (else the runner's; without either they are skipped). */
  judge?: JudgeOptions;
}

/**
 * Runs scenarios on one agent stack (the embedded speech service and engines, started once). Many calls may run
 * at once; each has its own virtual clock.
 */
export class ScenarioRunner {
  private readonly voice: CallerVoice;

  private constructor(
    private readonly stack: EmbeddedAgentStack,
    private readonly owned: boolean,
    private readonly options: RunnerOptions,
  ) {
    this.voice = new CallerVoice(stack.client);
  }

  static async open(options: RunnerOptions = {}): Promise<ScenarioRunner> {
    const stack = options.stack ?? (await createEmbeddedAgentStack({ ...(options.service ? { service: options.service } : {}), ...options.speech }));
    return new ScenarioRunner(stack, !options.stack, options);
  }

  async run(scenario: Scenario, options: RunOptions = {}): Promise<ScenarioResult> {
    const seed = options.seed ?? scenario.conditions.seed ?? 1;
    const witness = options.agent ? undefined : new TraceWitness();
    const agent = options.agent ?? this.stack.agentFor(await scenarioDialogue(scenario, options, this.options.defaultAgent), { mode: scenario.mode, tracer: witness });
    const clips = await this.clipsFor(scenario);
    const started = performance.now();
    const log = await new CallDriver(agent, scenario, clips, seed).run();
    if (witness) log.traces = Object.fromEntries(witness.traces);
    const wallMs = performance.now() - started;
    const outcome = checkCall(scenario, log);
    const failures = [...outcome.failures];
    const skipped: ScenarioResult['skipped'] = [];
    const judgeOptions = options.judge ?? this.options.judge;
    for (const question of outcome.judge) {
      if (!judgeOptions) {
        skipped.push({ ...(question.step !== undefined ? { step: question.step } : {}), criterion: question.criterion });
        continue;
      }
      try {
        const verdict = await judge(question, judgeOptions);
        if (!verdict.pass) failures.push({ ...(question.step !== undefined ? { step: question.step } : {}), message: `judge "${question.criterion}": ${verdict.reason}` });
      } catch (error) {
        failures.push({ ...(question.step !== undefined ? { step: question.step } : {}), message: `judge "${question.criterion}": the judge could not be asked: ${error instanceof Error ? error.message : String(error)}` });
      }
    }
    failures.sort((a, b) => (a.step ?? Infinity) - (b.step ?? Infinity));
    return {
      name: scenario.name,
      ...(scenario.file !== undefined ? { file: scenario.file } : {}),
      passed: failures.length === 0,
      failures,
      turns: log.turns.filter((turn) => turn.report).length,
      durationMs: log.endMs,
      wallMs,
      speedup: log.endMs / Math.max(1, wallMs),
      seed,
      v2v: outcome.v2v,
      skipped,
      log,
    };
  }

  async close(): Promise<void> {
    if (this.owned) await this.stack.close();
  }

  private async clipsFor(scenario: Scenario): Promise<StepClips> {
    const rate = scenario.line === 'phone' ? 8000 : 16000;
    const clips = new Map<number, Clip>();
    // One at a time: the speech service refuses more syntheses at once than its limit.
    for (const [index, step] of scenario.steps.entries()) {
      try {
        if (step.say !== undefined) clips.set(index, await this.voice.say(step.say, scenario.caller.voice, rate));
        else if (step.play !== undefined) clips.set(index, await this.voice.play(step.play, scenario.dir, rate));
      } catch (error) {
        throw new ScenarioSetupError(`${scenario.file ?? scenario.name}: step ${index + 1}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return clips;
  }
}

/** Runs one scenario on a stack of its own (started and closed here); for many, open a `ScenarioRunner` once. */
export async function runScenario(scenario: Scenario, options: RunOptions & RunnerOptions = {}): Promise<ScenarioResult> {
  const runner = await ScenarioRunner.open(options);
  try {
    return await runner.run(scenario, options);
  } finally {
    await runner.close();
  }
}
