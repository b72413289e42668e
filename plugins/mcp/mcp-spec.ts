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
