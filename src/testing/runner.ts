import type { CallRecords, EmbeddedAgentStack, EmbeddedStackOptions } from '../agent/index.js';
import { createEmbeddedAgentStack } from '../agent/index.js';
import { scenarioDialogue, ScenarioSetupError, stepPlace, type AgentChoice, type DefaultAgent } from './agent-choice.js';
import { AgentResources } from './agent-resources.js';
import { CallDriver, type SimulatedCaller, type StepClips } from './call-driver.js';
import type { CallLog } from './call-log.js';
import { CallerVoice, type Clip } from './caller-audio.js';
import { checkCall, type Failure } from './checks.js';
import { judge, type JudgedCriterion, type JudgeOptions } from './judge.js';
import { callStats, type CallStats } from './call-stats.js';
import { CallerModel } from './caller-model.js';
import { encodeWav } from '../audio/index.js';
import type { SpeechClient } from '../client/index.js';
import { unsampledTraceparent } from '../tracing/index.js';
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
  /** Voice-to-voice of each step (or simulated caller's line: step 0) with a caller's voice and a reply, ms. */
  v2v: Array<{ step: number; ms: number }>;
  /** `judge:` criteria not checked (no judge URL). */
  skipped: Array<{ step?: number; criterion: string }>;
  /** The judge's verdicts: pass, fail (also a failure) or maybe (not one), with its reason. */
  judged: JudgedCriterion[];
  /** What the call came to, for the suite report. */
  stats: CallStats;
  /** The scenario could not be run to its end (an exception): it counts as an error, not a failure. */
  error?: string;
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
  /** Keep a record of every call (`shoal test --record DIR`). */
  records?: CallRecords;
  /**
   * Calls run at once (default 1). With more, the stack started here gives each call's recognition a worker
   * thread of its own, up to one per core: decoding is most of a call's work.
   */
  concurrency?: number;
  /** Dialogue files and MCP servers shared by the calls; the caller closes them. Default: the runner's own, closed by `close()`. */
  resources?: AgentResources;
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
  private readonly resources: AgentResources;
  private readonly client: SpeechClient;

  private constructor(
    private readonly stack: EmbeddedAgentStack,
    private readonly owned: boolean,
    private readonly options: RunnerOptions,
  ) {
    // The scenario's callers speak and hear through the speech service.
    if (!stack.client) throw new Error('the scenario runner needs a stack with the speech service (withService)');
    this.client = stack.client;
    this.voice = new CallerVoice(stack.client);
    this.resources = options.resources ?? new AgentResources();
  }

  static async open(options: RunnerOptions = {}): Promise<ScenarioRunner> {
    const spread = (options.concurrency ?? 1) > 1 ? { recognizerCallsPerWorker: 1 } : {};
    const stack = options.stack ?? (await createEmbeddedAgentStack({ ...(options.service ? { service: options.service } : {}), ...options.speech, ...spread, withService: true }));
    return new ScenarioRunner(stack, !options.stack, options);
  }

  /** Runs one scenario's call; a call that throws comes back as a result with `error` (the call hung up). */
  async run(scenario: Scenario, options: RunOptions = {}): Promise<ScenarioResult> {
    const seed = options.seed ?? scenario.conditions.seed ?? 1;
    const started = performance.now();
    try {
      return await this.call(scenario, options, seed, started);
    } catch (error) {
      const wallMs = performance.now() - started;
      return {
        name: scenario.name,
        ...(scenario.file !== undefined ? { file: scenario.file } : {}),
        passed: false,
        failures: [],
        turns: 0,
        durationMs: 0,
        wallMs,
        speedup: 0,
        seed,
        v2v: [],
        skipped: [],
        judged: [],
        stats: callStats(undefined),
        error: error instanceof Error ? error.message : String(error),
      };
    }
  }

  private async call(scenario: Scenario, options: RunOptions, seed: number, started: number): Promise<ScenarioResult> {
    const witness = options.agent ? undefined : new TraceWitness();
    // The VAD runs in this thread: a call on the virtual clock waits for every frame's score, and a hop to the VAD
    // worker per frame cost more than the inference.
    const vad = () => this.stack.vadInThread();
    const agent = options.agent ?? this.stack.agentFor(await scenarioDialogue(scenario, options, this.options.defaultAgent, this.resources), { mode: scenario.mode, tracer: witness, vad, ...(this.options.records ? { records: this.options.records } : {}) });
    const clips = await this.clipsFor(scenario);
    const log = await new CallDriver(agent, scenario, clips, seed, this.simulatedCaller(scenario, seed)).run();
    if (witness) log.traces = Object.fromEntries(witness.traces);
    const wallMs = performance.now() - started;
    const outcome = checkCall(scenario, log);
    const failures = [...outcome.failures];
    const skipped: ScenarioResult['skipped'] = [];
    const judged: JudgedCriterion[] = [];
    const judgeOptions = options.judge ?? this.options.judge;
    for (const question of outcome.judge) {
      const step = question.step !== undefined ? { step: question.step } : {};
      if (!judgeOptions) {
        skipped.push({ ...step, criterion: question.criterion });
        continue;
      }
      try {
        const verdict = await judge(question, judgeOptions);
        judged.push({ ...step, criterion: question.criterion, ...verdict });
        if (verdict.verdict === 'fail') failures.push({ ...step, message: `judge "${question.criterion}": ${verdict.reason}` });
      } catch (error) {
        failures.push({ ...step, message: `judge "${question.criterion}": the judge could not be asked: ${error instanceof Error ? error.message : String(error)}` });
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
      judged,
      stats: callStats(log),
      log,
    };
  }

  /** The scenario's caller played by an LLM, if it has one: it speaks in the caller's voice and hears through the speech service. */
  private simulatedCaller(scenario: Scenario, seed: number): SimulatedCaller | undefined {
    const settings = scenario.caller.simulated;
    if (!settings) return undefined;
    const rate = scenario.line === 'phone' ? 8000 : 16000;
    const client = this.client;
    return {
      model: new CallerModel(settings, seed),
      maxTurns: settings.maxTurns,
      speak: (text) => this.voice.say(text, scenario.caller.voice, rate),
      hear: async (samples, sampleRate) => {
        if (samples.length === 0) return '';
        // The service transcribes 1 s or more: a short reply ("Okay.") is padded with the silence that followed it.
        const padded = new Int16Array(Math.max(samples.length, Math.ceil(sampleRate * minHeardSeconds)));
        padded.set(samples);
        // Under an unsampled trace: the caller's ear is no part of the call under test.
        const heard = await client.transcribe(encodeWav(padded, sampleRate), { traceparent: unsampledTraceparent() });
        return heard.text.trim();
      },
    };
  }

  async close(): Promise<void> {
    if (!this.options.resources) await this.resources.close();
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
        throw new ScenarioSetupError(`${stepPlace(scenario, index)}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return clips;
  }
}

/** A simulated caller's ear pads what it heard to this length (the speech service's shortest transcription). */
const minHeardSeconds = 1.2;

/** Runs one scenario on a stack of its own (started and closed here); for many, open a `ScenarioRunner` once. */
export async function runScenario(scenario: Scenario, options: RunOptions & RunnerOptions = {}): Promise<ScenarioResult> {
  const runner = await ScenarioRunner.open(options);
  try {
    return await runner.run(scenario, options);
  } finally {
    await runner.close();
  }
}
