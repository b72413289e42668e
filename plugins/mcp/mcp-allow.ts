import { McpServerError } from './mcp-server.js';

/**
 * An agent's allow-list of MCP tools (`server.tool` names) as tool names per server. A name that is not
 * `server.tool`, or names a server not in `servers`, is an error that says which.
 */
export function allowLists(names: readonly string[], servers: readonly string[]): Map<string, string[]> {
  const lists = new Map<string, string[]>();
  for (const name of names) {
    const dot = name.indexOf('.');
    if (dot <= 0 || dot === name.length - 1) throw new McpServerError(`"${name}" is not server.tool (e.g. bank.block_card)`);
    const server = name.slice(0, dot);
    if (!servers.includes(server)) throw new McpServerError(`"${name}" names no MCP server given (servers: ${servers.join(', ') || 'none'})`);
    lists.set(server, [...(lists.get(server) ?? []), name.slice(dot + 1)]);
  }
  return lists;
}
