import { z } from 'zod';
import { scenarioDefaults, type Scenario } from './scenario.js';
import type { Step, StepExpectation } from './schema.js';

/**
 * Pipecat Evals' scripted scenario files (top-level `turns:`), read so that people coming from there bring their
 * scenarios along. A turn's `audio:` is played (else its `user:` said), `dtmf:` pressed; its `expect:` events map
 * onto a step's expectations: `text_contains` on a response → `says` (`absent: true` → `not_says`),
 * `text_excludes` → `not_says`, on a `user_transcription` → `heard`; `eval` → `judge`; `within_ms` → `within_ms`;
 * a `function_call` (`name`/`args`, or the first of its `calls`) → `tool` (`absent: true` → `not_tool`). Shoal
 * runs them through the agent named on the command line (or its defaults).
 */
const responseEvents = ['response', 'llm_response', 'tts_response'] as const;

const expectation = z.looseObject({
  event: z.enum([...responseEvents, 'function_call', 'user_transcription', 'llm_started', 'user_started_speaking', 'user_stopped_speaking']),
  text_contains: z.string().min(1).optional(),
  text_excludes: z.string().min(1).optional(),
  eval: z.string().min(1).optional(),
  within_ms: z.number().nonnegative().optional(),
  absent: z.boolean().optional(),
  name: z.string().min(1).optional(),
  function_name: z.string().min(1).optional(),
  args: z.record(z.string(), z.unknown()).optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  calls: z.array(z.looseObject({ name: z.string().min(1), args: z.record(z.string(), z.unknown()).optional() })).min(1).optional(),
});

const turn = z.looseObject({
  user: z.string().min(1).optional(),
  dtmf: z.union([z.string(), z.number()]).transform(String).pipe(z.string().regex(/^[0-9*#A-Da-d]+$/, 'keys are 0-9, *, # and A-D')).optional(),
  audio: z.string().min(1).optional(),
  expect: z.array(expectation).optional(),
});

export const pipecatEvalSchema = z.looseObject({
  name: z.string().min(1),
  turns: z.array(turn).min(1),
});

export type PipecatEval = z.infer<typeof pipecatEvalSchema>;

export function isPipecatEval(value: Record<string, unknown>): boolean {
  return 'turns' in value && !('scenarios' in value);
}

export function scenarioFromPipecat(source: PipecatEval, file: string, dir: string): Scenario {
  return {
    name: source.name,
    file,
    dir,
    mode: scenarioDefaults.mode,
    line: scenarioDefaults.line,
    conditions: {},
    caller: { voice: scenarioDefaults.voice, gapMs: scenarioDefaults.gapMs },
    replyTimeoutMs: scenarioDefaults.replyTimeoutMs,
    steps: source.turns.map(stepOf),
    expect: {},
  };
}

function stepOf(turn: PipecatEval['turns'][number]): Step {
  // A turn with both `audio:` and `user:` plays the recording; `user:` only says what it holds.
  const step: Step = turn.audio !== undefined ? { play: turn.audio } : turn.user !== undefined ? { say: turn.user } : turn.dtmf !== undefined ? { dtmf: turn.dtmf } : {};
  const expect: StepExpectation = {};
  const says: string[] = [];
  const notSays: string[] = [];
  for (const entry of turn.expect ?? []) {
    if (entry.within_ms !== undefined) expect.within_ms = Math.min(expect.within_ms ?? Infinity, entry.within_ms);
    if (entry.event === 'function_call') {
      const call = entry.calls?.[0];
      const name = entry.name ?? entry.function_name ?? call?.name;
      if (!name) continue;
      const args = entry.args ?? entry.arguments ?? call?.args;
      if (entry.absent) expect.not_tool = name;
      else expect.tool = { name, ...(args ? { args } : {}) };
    } else if (entry.event === 'user_transcription') {
      if (entry.text_contains) expect.heard = entry.text_contains;
    } else if ((responseEvents as readonly string[]).includes(entry.event)) {
      if (entry.text_contains) (entry.absent ? notSays : says).push(entry.text_contains);
      if (entry.text_excludes) notSays.push(entry.text_excludes);
      if (entry.eval) expect.judge = expect.judge ? `${expect.judge}; ${entry.eval}` : entry.eval;
    }
  }
  if (says.length > 0) expect.says = says.length === 1 ? says[0]! : says;
  if (notSays.length > 0) expect.not_says = notSays.length === 1 ? notSays[0]! : notSays;
  if (Object.keys(expect).length > 0 || Object.keys(step).length === 0) step.expect = expect;
  return step;
}
