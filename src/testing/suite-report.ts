import { percentile } from '../agent/index.js';
import type { CallerEnding } from './caller-model.js';
import type { ScenarioResult } from './runner.js';

/** Figures over a set of runs: one scenario's, or the whole suite's. */
export interface RunFigures {
  runs: number;
  passed: number;
  /** Runs that threw (see `error`): neither passed nor failed on a check. */
  errors: number;
  /** passed / runs, 0..1. */
  passRate: number;
  /** The agent's turns per call. */
  turns: { min: number; max: number; mean: number };
  /** Voice to voice over every timed reply of the runs, ms (absent: none timed). */
  v2vMs: { p50?: number; p95?: number; count: number };
  /** Agent turns the caller barged in on. */
  bargedIn: number;
  /** Times the agent started speaking while the caller was speaking. */
  talkedOver: number;
  /** Tool calls by name. */
  toolCalls: Record<string, number>;
  /** `judge:` verdicts. */
  judged: { pass: number; fail: number; maybe: number; skipped: number };
  /** How simulated callers' conversations ended, by ending. */
  callerEndings?: Partial<Record<CallerEnding, number>>;
}

export interface ScenarioFigures extends RunFigures {
  name: string;
  file?: string;
  /** The runs that did not pass: their seed, failures or error. */
  failing: Array<{ seed: number; failures: ScenarioResult['failures']; error?: string }>;
}

/** The suite report: every scenario over its runs, and the suite rolled up. */
export interface SuiteReport {
  scenarios: ScenarioFigures[];
  suite: RunFigures & { scenarios: number };
}

export function figuresOf(results: readonly ScenarioResult[]): RunFigures {
  const passed = results.filter((result) => result.passed).length;
  const turns = results.filter((result) => !result.error).map((result) => result.turns);
  const v2v = results.flatMap((result) => result.v2v.map((entry) => entry.ms));
  const p50 = percentile(v2v, 50);
  const p95 = percentile(v2v, 95);
  const toolCalls: Record<string, number> = {};
  for (const name of results.flatMap((result) => result.stats.toolCalls)) toolCalls[name] = (toolCalls[name] ?? 0) + 1;
  const verdicts = results.flatMap((result) => result.judged.map((entry) => entry.verdict));
  const endings = results.flatMap((result) => (result.stats.callerEnding ? [result.stats.callerEnding] : []));
  const callerEndings: Partial<Record<CallerEnding, number>> = {};
  for (const ending of endings) callerEndings[ending] = (callerEndings[ending] ?? 0) + 1;
  return {
    runs: results.length,
    passed,
    errors: results.filter((result) => result.error !== undefined).length,
    passRate: results.length ? passed / results.length : 0,
    turns: { min: turns.length ? Math.min(...turns) : 0, max: turns.length ? Math.max(...turns) : 0, mean: turns.length ? turns.reduce((a, b) => a + b, 0) / turns.length : 0 },
    v2vMs: { ...(p50 !== undefined ? { p50: Math.round(p50) } : {}), ...(p95 !== undefined ? { p95: Math.round(p95) } : {}), count: v2v.length },
    bargedIn: results.reduce((sum, result) => sum + result.stats.bargedIn, 0),
    talkedOver: results.reduce((sum, result) => sum + result.stats.talkedOver, 0),
    toolCalls,
    judged: {
      pass: verdicts.filter((verdict) => verdict === 'pass').length,
      fail: verdicts.filter((verdict) => verdict === 'fail').length,
      maybe: verdicts.filter((verdict) => verdict === 'maybe').length,
      skipped: results.reduce((sum, result) => sum + result.skipped.length, 0),
    },
    ...(endings.length ? { callerEndings } : {}),
  };
}

/** Groups the results by scenario (file and name, in first-run order) and rolls them up. */
export function suiteReport(results: readonly ScenarioResult[]): SuiteReport {
  const groups = new Map<string, ScenarioResult[]>();
  for (const result of results) {
    const key = `${result.file ?? ''}\n${result.name}`;
    groups.set(key, [...(groups.get(key) ?? []), result]);
  }
  const scenarios = [...groups.values()].map((runs): ScenarioFigures => ({
    name: runs[0]!.name,
    ...(runs[0]!.file !== undefined ? { file: runs[0]!.file } : {}),
    ...figuresOf(runs),
    failing: runs.filter((run) => !run.passed).map((run) => ({ seed: run.seed, failures: run.failures, ...(run.error !== undefined ? { error: run.error } : {}) })),
  }));
  return { scenarios, suite: { scenarios: scenarios.length, ...figuresOf(results) } };
}

/** `12/15 passed (80 %), v2v p50 640 ms p95 910 ms, 2 barged in, 1 talked over` */
export function figuresLine(figures: RunFigures): string {
  const parts = [`${figures.passed}/${figures.runs} passed (${Math.round(figures.passRate * 100)} %)`];
  if (figures.errors) parts.push(`${figures.errors} error${figures.errors > 1 ? 's' : ''}`);
  if (figures.v2vMs.p50 !== undefined) parts.push(`v2v p50 ${figures.v2vMs.p50} ms p95 ${figures.v2vMs.p95} ms`);
  parts.push(`turns ${figures.turns.min === figures.turns.max ? figures.turns.min : `${figures.turns.min}-${figures.turns.max}`}`);
  if (figures.bargedIn) parts.push(`barged in on ${figures.bargedIn}×`);
  if (figures.talkedOver) parts.push(`talked over the caller ${figures.talkedOver}×`);
  const tools = Object.entries(figures.toolCalls).map(([name, count]) => `${name} ×${count}`);
  if (tools.length) parts.push(`tools ${tools.join(', ')}`);
  if (figures.callerEndings) parts.push(`callers: ${Object.entries(figures.callerEndings).map(([ending, count]) => `${ending.replace('_', ' ')} ${count}`).join(', ')}`);
  const { pass, fail, maybe } = figures.judged;
  if (pass + fail + maybe) parts.push(`judge ${pass} pass, ${fail} fail, ${maybe} maybe`);
  return parts.join(', ');
}
