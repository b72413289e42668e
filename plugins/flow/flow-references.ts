import { findReferenceProblems, type DialogueScript, type Outcome, type ReferenceProblem } from '../scripted/index.js';
import { parseCondition } from './condition.js';
import type { Flow } from './flow-schema.js';

/** Tools every LLM state can be given without declaring them. */
export const builtInTools = ['end_call', 'expect_answer'] as const;

/**
 * The scripted checks (states, intents, slots, templates) and the flow's own: states named by `on_tool`,
 * `after` and `llm.goto`, tools named by states (declared in `tools:`, given in code, built in, or
 * `server.tool` of a server in `mcp:`), `when` conditions, and a top-level `llm` when a state needs it.
 */
export function findFlowProblems(flow: Flow, codeTools: readonly string[] = [], mcpServers: readonly string[] = []): ReferenceProblem[] {
  const problems = findReferenceProblems(flow as unknown as DialogueScript);
  const states = Object.keys(flow.states);
  const tools = new Set([...Object.keys(flow.tools), ...codeTools, ...builtInTools]);
  const checkState = (name: string | undefined, path: ReferenceProblem['path']) => {
    if (name !== undefined && !flow.states[name]) problems.push({ path, message: `unknown state "${name}" (known states: ${states.join(', ')})` });
  };
  const checkOutcome = (outcome: Outcome | undefined, path: ReferenceProblem['path']) => checkState(outcome?.goto, [...path, 'goto']);
  const checkTool = (name: string, path: ReferenceProblem['path']) => {
    const [server, tool] = name.split('.');
    if (tool !== undefined) {
      if (!mcpServers.includes(server!)) problems.push({ path, message: `unknown MCP server "${server}" (servers: ${mcpServers.join(', ') || 'none in mcp:'})` });
      return;
    }
    if (!tools.has(name)) problems.push({ path, message: `unknown tool "${name}" (known tools: ${[...tools].join(', ')})` });
  };
  flow.global_tools.forEach((name, i) => checkTool(name, ['global_tools', i]));
  for (const [name, state] of Object.entries(flow.states)) {
    const at = ['states', name] as const;
    if (state.llm) {
      if (!flow.llm) problems.push({ path: [...at, 'llm'], message: 'an LLM state needs the model: add llm: {url, model, instructions} at the top level' });
      state.llm.tools.forEach((tool, i) => checkTool(tool, [...at, 'llm', 'tools', i]));
      state.llm.goto?.forEach((target, i) => checkState(target, [...at, 'llm', 'goto', i]));
    }
    const offered = new Set([...(state.llm?.tools ?? []), ...flow.global_tools]);
    for (const [tool, branch] of Object.entries(state.on_tool ?? {})) {
      const path = [...at, 'on_tool', tool];
      if (!state.llm) problems.push({ path, message: 'on_tool needs an LLM state (llm: {task, tools})' });
      else if (!offered.has(tool)) problems.push({ path, message: `tool "${tool}" is not offered in this state (its tools: ${[...offered].join(', ') || 'none'})` });
      checkOutcome(branch, path);
      checkOutcome(branch.else, [...path, 'else']);
      if (branch.when !== undefined) {
        try {
          parseCondition(branch.when);
        } catch (error) {
          problems.push({ path: [...path, 'when'], message: (error as Error).message });
        }
      }
    }
    if (state.after) checkOutcome(state.after, [...at, 'after']);
  }
  return problems;
}
