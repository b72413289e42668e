import { z } from 'zod';

/** What a running tool knows about where it runs. */
export interface ToolContext {
  /** The model's id of this call. */
  callId: string;
  /** The voice call the turn belongs to (the session's trace id), when the agent gave one. */
  conversationId?: string;
  /** W3C `traceparent` of the dialogue request, for the tool's own outgoing requests. */
  traceparent?: string;
  /** Aborted when the reply is cancelled (barge-in, hangup, a discarded speculative reply). */
  signal: AbortSignal;
}

/** A function the model may call. Build one with `defineTool` to get typed, validated arguments. */
export interface ChatTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters?: Record<string, unknown>;
  /**
   * True when running the tool has no side effects (a lookup), so it may run while the reply is still
   * speculative. Default false: the run waits until the caller's turn is final, and never happens for a
   * reply that is thrown away.
   */
  speculative?: boolean;
  /**
   * Runs the tool; the result goes back to the model, which continues the reply. A thrown error goes back
   * to the model as the result (`{ error }`). Without `run` the call is only surfaced as a `tool-call` output.
   */
  run?(args: Record<string, unknown>, context: ToolContext): unknown;
}

export interface ToolDefinition<Schema extends z.ZodType> {
  name: string;
  description?: string;
  parameters: Schema;
  speculative?: boolean;
  run?(args: z.output<Schema>, context: ToolContext): unknown;
}

/** A tool whose arguments are a zod schema: sent to the model as JSON Schema, checked before `run`. */
export function defineTool<Schema extends z.ZodType>(definition: ToolDefinition<Schema>): ChatTool {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(definition.parameters, { io: 'input' }) as Record<string, unknown>;
  const run = definition.run;
  return {
    name: definition.name,
    ...(definition.description !== undefined ? { description: definition.description } : {}),
    parameters,
    speculative: definition.speculative ?? false,
    ...(run
      ? {
          run: (args: Record<string, unknown>, context: ToolContext) => {
            const parsed = definition.parameters.safeParse(args);
            if (!parsed.success) throw new ToolArgumentsError(definition.name, z.prettifyError(parsed.error));
            return run(parsed.data, context);
          },
        }
      : {}),
  };
}

/** The model called a tool with arguments its schema does not accept; the message goes back to the model. */
export class ToolArgumentsError extends Error {
  override readonly name = 'ToolArgumentsError';
  constructor(tool: string, detail: string) {
    super(`invalid arguments for ${tool}: ${detail}`);
  }
}

export type ToolOutcome = { result: unknown } | { error: string };

/** Runs a tool, turning a throw (or a rejected promise) into an error the model can read. */
export async function runTool(run: NonNullable<ChatTool['run']>, args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome> {
  try {
    return { result: await run(args, context) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** The `tools` entry of a chat-completions request. */
export function toolDefinition(tool: ChatTool): { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } } {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description ?? '', parameters: tool.parameters ?? { type: 'object', properties: {} } },
  };
}
