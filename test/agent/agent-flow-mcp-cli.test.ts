/** `shoal agent --script` with a flow's `mcp:` from outside: on SIGINT it drains, stops the server and exits 0. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAndStopAgent } from '../support/agent-process.js';
import { alive } from '../support/shoal-process.js';

describe("shoal agent with a flow's MCP server", () => {
  it('SIGINT stops the server and the agent exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-agent-flow-mcp-'));
    const pidFile = join(dir, 'bank.pid');
    const flow = join(dir, 'bank.yaml');
    writeFileSync(
      flow,
      `name: bank
start: account
llm: { url: "http://127.0.0.1:9/v1", model: m }
mcp:
  bank: { command: "${process.execPath}", args: [--import, tsx, "${resolve('test/support/mcp-bank-server.ts')}"], env: { BANK_PID_FILE: "${pidFile}" } }
states:
  account:
    say: How can I help?
    llm: { task: Help with the account., tools: [bank.balance] }
`,
    );
    const run = await startAndStopAgent(['--script', flow], 'SIGINT', pidFile);
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
    expect(alive(run.serverPid)).toBe(false);
  }, 60_000);
});
