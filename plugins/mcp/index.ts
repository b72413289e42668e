export { McpServer, McpServerError, type McpOptions } from './mcp-server.js';
export { mcpServerSpecSchema, mcpSpecObject, withSpeculative, type McpServerSpec } from './mcp-spec.js';
export { allowLists } from './mcp-allow.js';
