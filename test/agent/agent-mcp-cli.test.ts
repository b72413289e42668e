/** `shoal agent --llm-url --mcp` from outside: on SIGTERM it drains, stops its MCP server and exits 0. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiServer } from '../support/fake-openai-server.js';
import { startAndStopAgent } from '../support/agent-process.js';
import { alive } from '../support/shoal-process.js';

const model = new FakeOpenAiServer();
beforeAll(() => model.start());
afterAll(() => model.close());

describe('shoal agent with an --mcp server', () => {
  it('lists the allowed tools at start; SIGTERM stops the server and the agent exits 0', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'shoal-agent-mcp-')), 'bank.pid');
    const mcp = `bank=env BANK_PID_FILE=${pidFile} ${process.execPath} --import tsx ${resolve('test/support/mcp-bank-server.ts')}`;
    const run = await startAndStopAgent(['--llm-url', model.baseUrl, '--mcp', mcp, '--mcp-tools', 'bank.balance'], 'SIGTERM', pidFile);
    expect(run.output).toMatch(/MCP server bank: bank_balance\n/);
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 0, signal: null });
    expect(alive(run.serverPid)).toBe(false);
  }, 60_000);
});
