/**
 * An LLM agent's own MCP allow-list and speculative tools, against the bank server of
 * test/support/mcp-bank-server.ts: `--mcp-tools` / `--mcp-speculative` (shoal agent, talk, test) and a scenario
 * file's `llm: {mcp_tools}`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Dialogue } from '../../src/agent/index.js';
import { encodeWav } from '../../src/audio/index.js';
import { llmDialogue } from '../../src/cli/llm-options.js';
import type { TestCommandOptions } from '../../src/cli/options.js';
import { runTests } from '../../src/cli/run-test.js';
import type { McpServer } from '../../plugins/index.js';
import { AgentResources, loadScenarios, scenarioDialogue } from '../../src/testing/index.js';
import { callsTools, FakeOpenAiServer, says } from '../support/fake-openai-server.js';
import { alive } from '../support/shoal-process.js';
import { shoalEntry } from '../support/shoal-entry.js';

const serverScript = resolve('test/support/mcp-bank-server.ts');
const dir = mkdtempSync(join(tmpdir(), 'shoal-mcp-agent-'));
const bank = (pidFile = 'bank.pid') => `bank=env BANK_PID_FILE=${join(dir, pidFile)} ${process.execPath} --import tsx ${serverScript}`;
const offered = (request: { body: { tools?: unknown[] } }) => (request.body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
const respond = (agent: Dialogue, userText: string, kept?: boolean) =>
  lastValueFrom(agent.respond({ history: [], userText, ...(kept !== undefined ? { speculative: { kept: async () => kept } } : {}) }).pipe(toArray()));

const shoal = (args: string[]) =>
  new Promise<{ code: number | null; stderr: string }>((done) =>
    execFile(process.execPath, [shoalEntry(), ...args], (error, _stdout, stderr) => done({ code: error ? (error.code as number) : 0, stderr })),
  );

const model = new FakeOpenAiServer();
beforeAll(() => model.start());
afterAll(() => model.close());

describe('--mcp-tools: the LLM agent\'s allow-list', () => {
  it('offers only the tools named, as bank_tool', async () => {
    const servers: McpServer[] = [];
    try {
      const agent = await llmDialogue({ llmUrl: model.baseUrl, llmKey: 'k', mcp: [bank()], mcpTools: ['bank.block_card', 'bank.balance'] }, undefined, servers);
      model.handlers.push(says('Which card?'));
      await respond(agent!, 'block my card');
      expect(offered(model.seen.at(-1)!)).toEqual(['bank_block_card', 'bank_balance', 'end_call', 'expect_answer']);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  }, 20_000);

  it('a tool the server does not have fails at start, naming it, and the server is stopped', async () => {
    const failed = llmDialogue({ llmUrl: model.baseUrl, mcp: [bank('missing.pid')], mcpTools: ['bank.block_card', 'bank.open_account'] });
    await expect(failed).rejects.toThrow(/--mcp bank: MCP server bank has no tool "open_account" \(its tools: block_card, balance/);
    await expect.poll(() => alive(Number(readFileSync(join(dir, 'missing.pid'), 'utf8'))), { timeout: 3000 }).toBe(false);
    await expect(llmDialogue({ llmUrl: model.baseUrl, mcp: [bank()], mcpTools: ['crm.find'] })).rejects.toThrow('--mcp-tools: "crm.find" names no MCP server given (servers: bank)');
  }, 20_000);

  it('on the command line (shoal talk, shoal test): exit 2 and the error on stderr', async () => {
    const quiet = join(dir, 'quiet.wav');
    writeFileSync(quiet, encodeWav(new Int16Array(1600), 16_000));
    const talk = await shoal(['talk', '--in', quiet, '--llm-url', model.baseUrl, '--mcp', bank(), '--mcp-tools', 'bank.block_card,bank.open_account']);
    expect(talk.stderr).toMatch(/shoal: --mcp bank: MCP server bank has no tool "open_account"/);
    expect(talk.code).toBe(2);
    const suite = join(dir, 'cli.scenarios.yaml');
    writeFileSync(suite, 'scenarios:\n  - name: s\n    steps: [{ say: hello }]\n');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const options = { llmUrl: model.baseUrl, mcp: [bank()], mcpSpeculative: ['crm.find'], runs: 1, concurrency: 1 } as TestCommandOptions;
      expect(await runTests([suite], options)).toBe(2);
      expect(stderr).toHaveBeenCalledWith('shoal test: --mcp-speculative: "crm.find" names no MCP server given (servers: bank)\n');
    } finally {
      stderr.mockRestore();
    }
  }, 30_000);
});

describe('--mcp-speculative', () => {
  it('a discarded speculative reply runs only the tools named; without the option it runs none', async () => {
    for (const [speculative, ranOnDiscard] of [[['bank.balance'], ['balance']], [undefined, []]] as const) {
      const servers: McpServer[] = [];
      try {
        const agent = await llmDialogue({ llmUrl: model.baseUrl, mcp: [bank()], ...(speculative ? { mcpSpeculative: [...speculative] } : {}) }, undefined, servers);
        model.handlers.push(
          callsTools([
            { id: 'c1', name: 'bank_balance', arguments: {} },
            { id: 'c2', name: 'bank_block_card', arguments: { last4: '4242' } },
          ]),
        );
        await respond(agent!, 'my balance, and block card 4242', false);
        const ran = await servers[0]!.tools.find((tool) => tool.name === 'bank.ran')!.run!({}, { callId: 'c1', signal: new AbortController().signal });
        expect(JSON.parse(ran as string)).toEqual(ranOnDiscard);
      } finally {
        await Promise.all(servers.map((server) => server.close()));
      }
    }
  }, 30_000);

  it('naming a server not given is an error', async () => {
    await expect(llmDialogue({ llmUrl: model.baseUrl, mcpSpeculative: ['bank.balance'] })).rejects.toThrow('--mcp-speculative: "bank.balance" names no MCP server given (servers: none)');
  });
});

describe("a scenario file's llm: {mcp_tools}", () => {
  const server = `${process.execPath} --import tsx ${serverScript}`;
  const suite = (mcpTools: string) => {
    const file = join(dir, `${mcpTools.replace(/\W/g, '')}.scenarios.yaml`);
    writeFileSync(file, `llm:\n  url: "${model.baseUrl}"\n  key: k\n  mcp: { bank: "${server}" }\n  mcp_tools: ${mcpTools}\nscenarios:\n  - name: s\n    steps: [{ say: hello }]\n`);
    return file;
  };

  it('offers only the tools named; a tool the server lacks fails at setup, a server not in mcp: at load', async () => {
    const resources = new AgentResources();
    try {
      const [scenario] = await loadScenarios(suite('[bank.balance]'));
      const agent = await scenarioDialogue(scenario!, {}, undefined, resources);
      model.handlers.push(says('120.50.'));
      await respond(agent, 'my balance');
      expect(offered(model.seen.at(-1)!)).toEqual(['bank_balance', 'end_call', 'expect_answer']);
      const [lacking] = await loadScenarios(suite('[bank.open_account]'));
      await expect(scenarioDialogue(lacking!, {}, undefined, resources)).rejects.toThrow(/MCP server bank has no tool "open_account"/);
    } finally {
      await resources.close();
    }
    const file = suite('[crm.find]');
    await expect(loadScenarios(file)).rejects.toThrow(`${file}:5: llm.mcp_tools[0]: unknown MCP server "crm" (servers: bank)`);
  }, 20_000);
});
