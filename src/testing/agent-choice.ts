import { access, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Dialogue, VoiceAgent } from '../agent/index.js';
import type { Scenario } from './scenario.js';

/** Where a scenario's agent comes from when the library is handed one instead of a name. */
export interface AgentChoice {
  /** A dialogue (or a factory of fresh ones, one per call) run on the runner's stack. */
  dialogue?: Dialogue | (() => Dialogue);
  /** A whole agent with its own engines. */
  agent?: VoiceAgent;
}

/** The agent of scenarios that name none (e.g. Pipecat Evals files): a ready-made agent's name or a script file. */
export interface DefaultAgent {
  agent?: string;
  script?: string;
}

/** A scenario cannot be run as written (an unknown agent, a missing script or clip): exit 2, like a bad file. */
export class ScenarioSetupError extends Error {
  override readonly name = 'ScenarioSetupError';
}

/**
 * The dialogue a scenario's call runs: the one handed over, else the scenario's `llm:`, `script:` or `agent:`,
 * else the default. Cheap (no engines), so a command can check every scenario before starting any.
 */
export async function scenarioDialogue(scenario: Scenario, choice: AgentChoice = {}, defaultAgent?: DefaultAgent): Promise<Dialogue> {
  if (choice.dialogue) return typeof choice.dialogue === 'function' ? choice.dialogue() : choice.dialogue;
  const fallback = scenario.agent === undefined && scenario.script === undefined && scenario.llm === undefined ? defaultAgent : undefined;
  const script = scenario.script !== undefined ? resolve(scenario.dir, scenario.script) : fallback?.script;
  const name = scenario.agent ?? fallback?.agent;
  try {
    if (scenario.llm) {
      const { ChatCompletionDialogue, declaredTools, loadToolFile } = await import('../../plugins/index.js');
      const declared = scenario.llm.tools;
      const tools = typeof declared === 'string' ? loadToolFile(resolve(scenario.dir, declared)) : declared ? declaredTools(declared, scenario.file ?? scenario.name) : [];
      const instructions = scenario.llm.instructions ? (await readFile(resolve(scenario.dir, scenario.llm.instructions), 'utf8')).trim() : undefined;
      const apiKey = scenario.llm.key ?? process.env.OPENAI_API_KEY;
      return new ChatCompletionDialogue({
        baseUrl: scenario.llm.url.replace(/\/+$/, ''),
        model: scenario.llm.model ?? 'gpt-4o-mini',
        ...(scenario.llm.greeting !== '' ? { greeting: scenario.llm.greeting ?? 'Hello! How can I help you today?' } : {}),
        tools,
        endCallTool: true,
        expectTool: true,
        ...(apiKey ? { apiKey } : {}),
        ...(instructions ? { systemPrompt: instructions } : {}),
      });
    }
    if (script) {
      const { openDialogueFile } = await import('../../plugins/index.js');
      return (await openDialogueFile(script)).create();
    }
    if (name) {
      const { createDialogue } = await import('../../agents/index.js');
      return createDialogue(name);
    }
  } catch (error) {
    throw new ScenarioSetupError(`${scenario.file ?? scenario.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  throw new ScenarioSetupError(`${scenario.file ?? scenario.name}: no agent: give agent:, script: or llm: in the file (or --agent / --script)`);
}

/** Checks, before any engine starts, that a scenario's agent can be made and its `play:` files can be read. */
export async function checkScenarioSetup(scenario: Scenario, defaultAgent?: DefaultAgent): Promise<void> {
  await scenarioDialogue(scenario, {}, defaultAgent);
  for (const [index, step] of scenario.steps.entries()) {
    if (step.play === undefined) continue;
    await access(resolve(scenario.dir, step.play)).catch((error: NodeJS.ErrnoException) => {
      throw new ScenarioSetupError(`${scenario.file ?? scenario.name}: step ${index + 1}: cannot read play: ${step.play} (${error.code ?? String(error)})`);
    });
  }
}
