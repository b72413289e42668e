/**
 * A small MCP server made with @modelcontextprotocol/sdk, for the MCP tests: `bankServer()` builds it; run as a
 * script (`node --import tsx test/support/mcp-bank-server.ts`) it serves over stdio.
 * Tools: block_card (validated: four digits), slow (waits 5 s unless cancelled), cancelled (how many slow calls
 * were cancelled), refuse (an isError result), crash (the process exits).
 */
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

let cancelled = 0;

export function bankServer(): McpServer {
  const server = new McpServer({ name: 'bank', version: '1.0.0' });
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  server.registerTool('block_card', { description: 'Blocks a card by its last four digits', inputSchema: { last4: z.string().regex(/^\d{4}$/) } }, ({ last4 }) => text(`card ending ${last4} blocked`));
  server.registerTool('slow', { description: 'Takes five seconds' }, (extra) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(text('finished')), 5000);
      extra.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        cancelled++;
        resolve(text('cancelled'));
      });
    }),
  );
  server.registerTool('cancelled', { description: 'Slow calls cancelled so far' }, () => text(String(cancelled)));
  server.registerTool('refuse', { description: 'Always fails' }, () => ({ ...text('the core banking system is down'), isError: true }));
  server.registerTool('crash', { description: 'Stops the server' }, () => process.exit(1));
  return server;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await bankServer().connect(new StdioServerTransport());
}
