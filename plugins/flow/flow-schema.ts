import { z } from 'zod';
import { outcomeSchema, scriptSchema, stateSchema } from '../scripted/index.js';
import { toolDeclarationSchema } from '../openai/index.js';
import { expectationSchema } from '../../src/speech/index.js';
import { mcpServerSpecSchema } from '../mcp/mcp-spec.js';

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must be a name of letters, digits, "_" or "-"');
/** A tool's name in a flow: `name`, or `server.tool` for a tool of an MCP server. */
const toolName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)?$/, 'must be a tool name (letters, digits, "_", "-"), or server.tool');

export const contextStrategies = ['append', 'reset', 'summary'] as const;

/** What the model does in an LLM state. */
export const stateLlmSchema = z.strictObject({
  /** The state's task, added to the flow's `llm.instructions` in the system prompt. */
  task: z.string().trim().min(1),
  /** The tools offered in this state (plus the flow's `global_tools`). */
  tools: z.array(toolName).default([]),
  /** What the model keeps from earlier states: all of it, nothing, or a summary the model writes. */
  context: z.enum(contextStrategies).default('append'),
  /** What the caller is expected to say while in this state (the model may also call `expect_answer`). */
  expect: z.union([expectationSchema, z.array(expectationSchema)]).optional(),
  /** States the model may go to by itself (it is offered a `goto` tool listing them). */
  goto: z.array(identifier).optional(),
});

/** A branch on a tool's result: `when` is a condition on `result`, `args` and `slots`; without `when` it is always taken. */
export const toolBranchSchema = z.strictObject({ when: z.string().min(1).optional(), ...outcomeSchema.shape, else: outcomeSchema.optional() });

export const flowStateSchema = stateSchema.extend({
  llm: stateLlmSchema.optional(),
  on_tool: z.record(toolName, toolBranchSchema).optional(),
  /** Gives up after this many caller turns in the state. */
  after: z.strictObject({ turns: z.number().int().min(1), ...outcomeSchema.shape }).optional(),
});

export const flowSchema = scriptSchema.extend({
  intents: scriptSchema.shape.intents.default({}),
  states: z.record(identifier, flowStateSchema),
  /** The model of the LLM states. */
  llm: z
    .strictObject({
      url: z.url(),
      model: z.string().min(1).default('gpt-4o-mini'),
      /** Said to the model in every LLM state, before the state's task. */
      instructions: z.string().trim().min(1).optional(),
      key: z.string().optional(),
    })
    .optional(),
  /** Tools declared in the file (an `http` endpoint runs them). */
  tools: z.record(identifier, toolDeclarationSchema).default({}),
  /** Offered in every LLM state. */
  global_tools: z.array(toolName).default([]),
  /**
   * MCP servers whose tools states name as `server.tool`: a command line (stdio), a URL (Streamable HTTP),
   * `{command, args, env, speculative}` or `{url, speculative}` (`speculative`: the server's tools that may run for a speculative reply).
   */
  mcp: z.record(identifier, mcpServerSpecSchema).default({}),
  /** Limit for one MCP tool call, ms. */
  mcp_timeout_ms: z.number().int().min(1).optional(),
});

export type Flow = z.output<typeof flowSchema>;
export type FlowState = z.output<typeof flowStateSchema>;
export type ToolBranch = z.output<typeof toolBranchSchema>;
