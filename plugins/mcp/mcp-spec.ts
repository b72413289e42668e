import { z } from 'zod';

/** Tools of the server that may run for a speculative reply (read-only ones): by their names on the server. */
const speculative = z.array(z.string().min(1)).optional();

/**
 * How to reach an MCP server, as files write it: a command line (stdio), a URL (Streamable HTTP),
 * `{command, args, env, speculative}` or `{url, speculative}`.
 */
export const mcpServerSpecSchema = z.union([
  z.string().min(1),
  z.strictObject({ command: z.string().min(1), args: z.array(z.string()).optional(), env: z.record(z.string(), z.string()).optional(), speculative }),
  z.strictObject({ url: z.url(), speculative }),
]);

export type McpServerSpec = z.output<typeof mcpServerSpecSchema>;

/** The spec as an object: a command line split into `{command, args}`, a URL as `{url}`. */
export function mcpSpecObject(spec: McpServerSpec): Exclude<McpServerSpec, string> {
  if (typeof spec !== 'string') return spec;
  if (/^https?:\/\//.test(spec)) return { url: spec };
  const [command, ...args] = spec.split(/\s+/).filter(Boolean);
  return { command: command!, args };
}

/** The spec with `tools` (names on the server) added to its `speculative` ones. */
export function withSpeculative(spec: McpServerSpec, tools: readonly string[]): McpServerSpec {
  if (tools.length === 0) return spec;
  const object = mcpSpecObject(spec);
  return { ...object, speculative: [...(object.speculative ?? []), ...tools] };
}
