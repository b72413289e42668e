import type { AgentMode } from '../agent/index.js';
import type { CallExpectation, Conditions, Line, LlmSettings, Step } from './schema.js';

/** One scenario, ready to run: the file's settings merged with the scenario's own. */
export interface Scenario {
  name: string;
  /** The file it came from (absent for scenarios built in code). */
  file?: string;
  /** Where `play`, `script` and `llm.instructions` paths are resolved from. */
  dir: string;
  agent?: string;
  script?: string;
  llm?: LlmSettings;
  mode: AgentMode;
  line: Line;
  conditions: Conditions;
  caller: { voice: string; gapMs: number; simulated?: SimulatedCallerSettings };
  replyTimeoutMs: number;
  steps: Step[];
  expect: CallExpectation;
  /** Where the scenario and its steps are written in its file (1-based lines), for messages. */
  lines?: { scenario?: number | undefined; steps: Array<number | undefined> };
}

/** A caller played by an LLM: who it is, what it wants, its model, and how many times at most it speaks. */
export interface SimulatedCallerSettings {
  persona?: string;
  goal: string;
  llm: { url: string; model?: string; key?: string };
  maxTurns: number;
}

export const scenarioDefaults = {
  maxTurns: 8,
  mode: 'balanced' as AgentMode,
  line: 'phone' as Line,
  voice: 'rms',
  gapMs: 400,
  replyTimeoutMs: 6_000,
};
