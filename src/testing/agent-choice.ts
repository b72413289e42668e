import { access, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Dialogue, VoiceAgent } from '../agent/index.js';
import type { Scenario } from './scenario.js';
import type { LlmSettings } from './schema.js';
import { AgentResources } from './agent-resources.js';

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
  /** An LLM agent (`--llm-url`); its `instructions` path is resolved from the working directory. */
  llm?: LlmSettings;
}

/** A scenario cannot be run as written (an unknown agent, a missing script or clip): exit 2, like a bad file. */
export class ScenarioSetupError extends Error {
  override readonly name = 'ScenarioSetupError';
}

/**
 * The dialogue a scenario's call runs: the one handed over, else the scenario's `llm:`, `script:` or `agent:`,
 * else the default. Cheap (no engines), so a command can check every scenario before starting any. Dialogue
 * files and MCP servers are opened once in `resources`; close it when the run ends.
 */
export async function scenarioDialogue(scenario: Scenario, choice: AgentChoice = {}, defaultAgent?: DefaultAgent, resources = new AgentResources()): Promise<Dialogue> {
  if (choice.dialogue) return typeof choice.dialogue === 'function' ? choice.dialogue() : choice.dialogue;
  const fallback = scenario.agent === undefined && scenario.script === undefined && scenario.llm === undefined ? defaultAgent : undefined;
  const script = scenario.script !== undefined ? resolve(scenario.dir, scenario.script) : fallback?.script;
  const name = scenario.agent ?? fallback?.agent;
  const llm = scenario.llm ?? fallback?.llm;
  const llmDir = scenario.llm ? scenario.dir : process.cwd();
  try {
    if (llm) {
      const { ChatCompletionDialogue, declaredTools, loadToolFile } = await import('../../plugins/index.js');
      const declared = llm.tools;
      const tools = typeof declared === 'string' ? loadToolFile(resolve(llmDir, declared)) : declared ? declaredTools(declared, scenario.file ?? scenario.name) : [];
      tools.push(...(llm.mcp || llm.mcp_tools ? await resources.mcpTools(llm.mcp ?? {}, llm.mcp_tools) : []));
      const instructions = llm.instructions ? await readInstructions(resolve(llmDir, llm.instructions)) : undefined;
      const apiKey = llm.key ?? process.env.OPENAI_API_KEY;
      const greeting = llm.greeting;
      return new ChatCompletionDialogue({
        baseUrl: llm.url.replace(/\/+$/, ''),
        model: llm.model ?? 'gpt-4o-mini',
        ...(greeting !== '' ? { greeting: greeting ?? 'Hello! How can I help you today?' } : {}),
        tools,
        endCallTool: true,
        expectTool: true,
        ...(apiKey ? { apiKey } : {}),
        ...(instructions ? { systemPrompt: instructions } : {}),
      });
    }
    if (script) {
      return (await resources.dialogueFile(script)).create();
    }
    if (name) {
      const { createDialogue } = await import('../../agents/index.js');
      return createDialogue(name);
    }
  } catch (error) {
    // A dialogue file's problems already say where they are (FILE:LINE: path: problem).
    if (error instanceof Error && error.name === 'ScriptValidationError') throw new ScenarioSetupError(error.message);
    throw new ScenarioSetupError(`${scenario.file ?? scenario.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  throw new ScenarioSetupError(`${scenario.file ?? scenario.name}: no agent: give agent:, script: or llm: in the file (or --agent / --script / --llm-url)`);
}

async function readInstructions(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    throw new Error(`llm.instructions: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

/**
 * Checks, before any engine starts, that a scenario's agent can be made (its MCP servers started) and its
 * `play:` files can be read. Without `resources` what it opened is closed again.
 */
export async function checkScenarioSetup(scenario: Scenario, defaultAgent?: DefaultAgent, resources?: AgentResources): Promise<void> {
  const opened = resources ?? new AgentResources();
  try {
    await scenarioDialogue(scenario, {}, defaultAgent, opened);
  } finally {
    if (!resources) await opened.close();
  }
  for (const [index, step] of scenario.steps.entries()) {
    if (step.play === undefined) continue;
    const play = resolve(scenario.dir, step.play);
    await access(play).catch((error: NodeJS.ErrnoException) => {
      throw new ScenarioSetupError(`${stepPlace(scenario, index)}: cannot read play: ${play} (${error.code ?? String(error)})`);
    });
  }
}

/** `FILE:LINE: scenario "NAME", step N`: where a step is written, for messages. */
export function stepPlace(scenario: Scenario, index: number): string {
  const line = scenario.lines?.steps[index];
  return `${scenario.file ?? '(in code)'}${line !== undefined ? `:${line}` : ''}: scenario "${scenario.name}", step ${index + 1}`;
}
