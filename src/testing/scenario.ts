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
  caller: { voice: string; gapMs: number };
  replyTimeoutMs: number;
  steps: Step[];
  expect: CallExpectation;
}

export const scenarioDefaults = {
  mode: 'balanced' as AgentMode,
  line: 'phone' as Line,
  voice: 'rms',
  gapMs: 400,
  replyTimeoutMs: 6_000,
};
