/**
 * A small MCP server made with @modelcontextprotocol/sdk, for the MCP tests: `bankServer()` builds it; run as a
 * script (`node --import tsx test/support/mcp-bank-server.ts`) it serves over stdio.
 * Tools: block_card (validated: four digits), balance (read-only), ran (the block_card and balance calls so far,
 * as JSON), slow (waits 5 s unless cancelled), cancelled (how many slow calls were cancelled), refuse (an isError
 * result), crash (the process exits). With $BANK_PID_FILE the script writes its process id there.
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

let cancelled = 0;
const ran: string[] = [];

export function bankServer(): McpServer {
  const server = new McpServer({ name: 'bank', version: '1.0.0' });
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  server.registerTool('block_card', { description: 'Blocks a card by its last four digits', inputSchema: { last4: z.string().regex(/^\d{4}$/) } }, ({ last4 }) => {
    ran.push(`block_card ${last4}`);
    return text(`card ending ${last4} blocked`);
  });
  server.registerTool('balance', { description: "The account's balance" }, () => {
    ran.push('balance');
    return text('120.50');
  });
  server.registerTool('ran', { description: 'The block_card and balance calls so far' }, () => text(JSON.stringify(ran)));
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
  if (process.env.BANK_PID_FILE) writeFileSync(process.env.BANK_PID_FILE, String(process.pid));
  await bankServer().connect(new StdioServerTransport());
}
