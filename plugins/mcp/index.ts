export { McpServer, McpServerError, type McpServerSpec, type McpOptions } from './mcp-server.js';
