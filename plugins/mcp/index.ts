export { McpServer, McpServerError, type McpOptions } from './mcp-server.js';
export { mcpServerSpecSchema, type McpServerSpec } from './mcp-spec.js';
