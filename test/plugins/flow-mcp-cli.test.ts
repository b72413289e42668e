/**
 * `shoal test` run from outside on suites whose agents use a stdio MCP server (test/support/mcp-bank-server.ts):
 * a flow's `mcp:` and `--mcp` (with `--mcp-tools`) on the command line. The servers' tools run in the calls, and when the run ends
 * the servers are stopped, so the process exits.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callsTools, FakeOpenAiServer, says } from '../support/fake-openai-server.js';
import { alive, shoal } from '../support/shoal-process.js';

const server = resolve('test/support/mcp-bank-server.ts');
const model = new FakeOpenAiServer();
beforeAll(async () => {
  await model.start();
  // The model blocks the card, then says so once it has the tool's result.
  model.fallback = (res, request) =>
    request.body.messages?.at(-1)?.role === 'tool' ? says('Your card is blocked.')(res, request) : callsTools([{ id: 'c1', name: 'bank_block_card', arguments: { last4: '4242' } }])(res, request);
});
afterAll(() => model.close());

function writeSuite(dir: string): void {
  writeFileSync(
    join(dir, 'bank.yaml'),
    `name: bank
start: block
llm: { url: "${model.baseUrl}", model: m }
mcp:
  bank: { command: "${process.execPath}", args: [--import, tsx, "${server}"], env: { BANK_PID_FILE: "${join(dir, 'flow.pid')}" } }
states:
  block:
    say: Which card should I block?
    llm: { task: Block the caller's card., tools: [bank.block_card] }
    on_tool: { bank.block_card: { goto: done } }
  done: { say: Your card is blocked. Goodbye., then: { end: blocked } }
`,
  );
  // The flow's tools in a call are tested in test/plugins/mcp-tools.test.ts: here its server only has to start and stop.
  writeFileSync(join(dir, 'flow.scenarios.yaml'), 'script: bank.yaml\nscenarios:\n  - name: flow greets\n    steps:\n      - expect: { says: "/which card/i" }\n');
  writeFileSync(
    join(dir, 'mcp.scenarios.yaml'),
    `mode: balanced
line: wideband
caller: { voice: rms }
scenarios:
  - name: llm agent with --mcp blocks the card
    steps:
      - expect: { says: "/help/i" }
      - say: "block my card ending four two four two"
        expect: { tool: { name: bank_block_card, args: { last4: "4242" }, times: 1 }, says: "/blocked/i" }
`,
  );
}

describe('shoal test with MCP servers', () => {
  it("starts a flow's mcp: and runs --mcp tools, then stops the servers and exits", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-mcp-cli-'));
    writeSuite(dir);
    const mcp = `bank=env BANK_PID_FILE=${join(dir, 'cli.pid')} ${process.execPath} --import tsx ${server}`;
    const run = await shoal(['test', dir, '--llm-url', model.baseUrl, '--mcp', mcp, '--mcp-tools', 'bank.block_card'], /passed in/, 10_000);
    expect(run.stdout).toMatch(/2\/2 scenarios passed/);
    expect(run.code).toBe(0);
    expect(run.exitAfterSummaryMs).toBeLessThan(10_000);
    expect(run.stderr).toMatch(/MCP server bank: bank_block_card, bank_balance/);
    // --mcp-tools: the models were offered no other tool of the server.
    const offered = model.seen.flatMap((request) => (request.body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((tool) => tool.function.name);
    expect(offered.filter((name) => name.startsWith('bank_'))).toContain('bank_block_card');
    expect(offered.filter((name) => name.startsWith('bank_') && name !== 'bank_block_card')).toEqual([]);
    for (const pidFile of ['flow.pid', 'cli.pid']) {
      expect(existsSync(join(dir, pidFile))).toBe(true);
      expect(alive(Number(readFileSync(join(dir, pidFile), 'utf8')))).toBe(false);
    }
  }, 120_000);
});
