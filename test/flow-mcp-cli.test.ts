/**
 * `shoal test` run from outside on suites whose agents use a stdio MCP server (test/support/mcp-bank-server.ts):
 * a flow's `mcp:` and `--mcp` on the command line. The servers' tools run in the calls, and when the run ends
 * the servers are stopped, so the process exits.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callsTools, FakeOpenAiServer, says } from './fake-openai-server.js';

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
  // The flow's tools in a call are tested in test/mcp-tools.test.ts: here its server only has to start and stop.
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

/** Runs `shoal test`; kills it if it has not exited `graceMs` after printing its summary (or 90 s in all). */
function shoalTest(args: string[], graceMs: number): Promise<{ code: number | null; stdout: string; stderr: string; exitAfterSummaryMs: number | undefined }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['bin/shoal.js', 'test', ...args]);
    let [stdout, stderr] = ['', ''];
    let summaryAt: number | undefined;
    const kill = (ms: number) => setTimeout(() => child.kill('SIGKILL'), ms);
    let timer = kill(90_000);
    child.stdout.on('data', (part: Buffer) => {
      stdout += part.toString();
      if (summaryAt === undefined && /passed in/.test(stdout)) {
        summaryAt = performance.now();
        clearTimeout(timer);
        timer = kill(graceMs);
      }
    });
    child.stderr.on('data', (part: Buffer) => (stderr += part.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, exitAfterSummaryMs: summaryAt === undefined ? undefined : performance.now() - summaryAt });
    });
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('shoal test with MCP servers', () => {
  it("starts a flow's mcp: and runs --mcp tools, then stops the servers and exits", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-mcp-cli-'));
    writeSuite(dir);
    const mcp = `bank=env BANK_PID_FILE=${join(dir, 'cli.pid')} ${process.execPath} --import tsx ${server}`;
    const run = await shoalTest([dir, '--llm-url', model.baseUrl, '--mcp', mcp], 10_000);
    expect(run.stdout).toMatch(/2\/2 scenarios passed/);
    expect(run.code).toBe(0);
    expect(run.exitAfterSummaryMs).toBeLessThan(10_000);
    expect(run.stderr).toMatch(/MCP server bank: bank_block_card, bank_balance/);
    for (const pidFile of ['flow.pid', 'cli.pid']) {
      expect(existsSync(join(dir, pidFile))).toBe(true);
      expect(alive(Number(readFileSync(join(dir, pidFile), 'utf8')))).toBe(false);
    }
  }, 120_000);
});
