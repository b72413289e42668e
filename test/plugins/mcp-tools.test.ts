import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { FlowDialogue, McpServer, McpServerError, openDialogueFile, wireName } from '../../plugins/index.js';
import { callsTools, FakeOpenAiServer, says } from '../support/fake-openai-server.js';
import type { ChatTool } from '../../plugins/index.js';
import { bankServer } from '../support/mcp-bank-server.js';

const stdio = { command: process.execPath, args: ['--import', 'tsx', 'test/support/mcp-bank-server.ts'] };
const context = (signal = new AbortController().signal) => ({ callId: 'c1', signal });
const tool = (server: McpServer, name: string): ChatTool => server.tools.find((t) => t.name === `bank.${name}`)!;

describe('tools of an MCP server over stdio', () => {
  let bank: McpServer;
  beforeAll(async () => {
    bank = await McpServer.connect('bank', stdio, { timeoutMs: 3000 });
  }, 30_000);
  afterAll(() => bank?.close());

  it('are listed at start-up as server.tool, offered under an OpenAI-safe name, not speculative', () => {
    expect(bank.tools.map((t) => t.name)).toEqual(['bank.block_card', 'bank.balance', 'bank.ran', 'bank.slow', 'bank.cancelled', 'bank.refuse', 'bank.crash']);
    expect(wireName('bank.block_card')).toBe('bank_block_card');
    expect(tool(bank, 'block_card').parameters).toMatchObject({ type: 'object', properties: { last4: { type: 'string' } }, required: ['last4'] });
    expect(bank.tools.every((t) => t.speculative === false)).toBe(true);
  });

  it('run with arguments the server validates; its answer is the result, its error the error', async () => {
    await expect(tool(bank, 'block_card').run!({ last4: '4242' }, context())).resolves.toBe('card ending 4242 blocked');
    await expect(tool(bank, 'block_card').run!({ last4: 'abc' }, context())).rejects.toThrow(/last4/);
    await expect(tool(bank, 'refuse').run!({}, context())).rejects.toThrow('the core banking system is down');
  });

  it('a slow call is cancelled when the reply is (barge-in), and the server hears of it', async () => {
    const abort = new AbortController();
    const started = Date.now();
    const call = tool(bank, 'slow').run!({}, context(abort.signal)) as Promise<unknown>;
    setTimeout(() => abort.abort(), 200);
    await expect(call).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);
    await expect.poll(() => tool(bank, 'cancelled').run!({}, context()), { timeout: 2000 }).toBe('1');
  });

  it('an allow-list offers only the tools named, and a tool the server lacks fails at start-up', async () => {
    const few = await McpServer.connect('bank', stdio, { allow: ['block_card'] });
    expect(few.tools.map((t) => t.name)).toEqual(['bank.block_card']);
    await few.close();
    await expect(McpServer.connect('bank', stdio, { allow: ['open_account'] })).rejects.toThrow(/no tool "open_account" \(its tools: block_card, balance, ran, slow/);
  }, 30_000);
});

describe('an MCP server that crashes', () => {
  it('is started again once; when it dies again its calls fail with that', async () => {
    const bank = await McpServer.connect('bank', stdio);
    await expect(tool(bank, 'crash').run!({}, context())).rejects.toThrow();
    await expect(tool(bank, 'block_card').run!({ last4: '1111' }, context())).resolves.toBe('card ending 1111 blocked');
    await expect(tool(bank, 'crash').run!({}, context())).rejects.toThrow();
    await expect(tool(bank, 'block_card').run!({ last4: '1111' }, context())).rejects.toThrow(McpServerError);
    await bank.close();
  }, 30_000);

  it('that cannot start is a clear error', async () => {
    await expect(McpServer.connect('nope', 'definitely-not-a-command-xyz')).rejects.toThrow(/cannot start MCP server nope \(definitely-not-a-command-xyz\)/);
  });
});

describe('tools of an MCP server over Streamable HTTP', () => {
  let http: Server;
  let url = '';
  beforeAll(async () => {
    http = createServer(async (req, res) => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const server = bankServer();
      res.on('close', () => void transport.close().then(() => server.close()));
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });

  it('are listed and called', async () => {
    const bank = await McpServer.connect('bank', url);
    expect(bank.tools.map((t) => t.name)).toContain('bank.block_card');
    await expect(tool(bank, 'block_card').run!({ last4: '9876' }, context())).resolves.toBe('card ending 9876 blocked');
    await expect(tool(bank, 'refuse').run!({}, context())).rejects.toThrow('the core banking system is down');
    await bank.close();
  });
});

describe('MCP tools in a flow', () => {
  it('mcp: starts the server, offers the named tools as server_tool, and on_tool follows their results', async () => {
    const model = await new FakeOpenAiServer().start();
    const dir = mkdtempSync(join(tmpdir(), 'shoal-flow-mcp-'));
    const file = join(dir, 'bank.yaml');
    writeFileSync(
      file,
      `name: bank
start: block
llm: { url: "${model.baseUrl}", model: m }
mcp:
  bank: { command: "${process.execPath}", args: [--import, tsx, "${resolve('test/support/mcp-bank-server.ts')}"] }
states:
  block:
    say: Which card?
    llm: { task: Block the caller's card., tools: [bank.block_card] }
    on_tool: { bank.block_card: { goto: done } }
  done: { say: Your card is blocked. Goodbye., then: { end: true } }
`,
    );
    const opened = await openDialogueFile(file);
    try {
      const dialogue = opened.create() as FlowDialogue;
      model.handlers.push(callsTools([{ id: 'c1', name: 'bank_block_card', arguments: { last4: '4242' } }]));
      const outputs = await lastValueFrom(dialogue.respond({ history: [{ role: 'agent', text: 'Which card?' }], userText: 'the one ending 4242' }).pipe(toArray()));
      expect((model.seen[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['bank_block_card', 'expect_answer']);
      expect(outputs[0]).toMatchObject({ type: 'tool-call', name: 'bank.block_card', result: 'card ending 4242 blocked' });
      expect(dialogue.state).toBe('done');
    } finally {
      await opened.close();
      await model.close();
    }
  }, 30_000);

  it('a flow naming an MCP server it does not declare fails at load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-flow-mcp-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'name: bad\nstart: a\nllm: { url: "http://127.0.0.1:9/v1" }\nstates:\n  a:\n    llm: { task: t, tools: [crm.lookup] }\n');
    await expect(openDialogueFile(file)).rejects.toThrow(`${file}:6: states.a.llm.tools[0]: unknown MCP server "crm" (servers: none in mcp:)`);
  });
});

describe('--mcp on the command line', () => {
  it('offers the server\'s tools to the --llm-url model as name_tool, and they run', async () => {
    const { llmDialogue } = await import('../../src/cli/llm-options.js');
    const model = await new FakeOpenAiServer().start();
    const agent = await llmDialogue({ llmUrl: model.baseUrl, llmKey: 'k', mcp: [`bank=${process.execPath} --import tsx test/support/mcp-bank-server.ts`] });
    try {
      model.handlers.push(callsTools([{ id: 'c1', name: 'bank_block_card', arguments: { last4: '4242' } }]), says('Blocked.'));
      const outputs = await lastValueFrom(agent!.respond({ history: [], userText: 'block my card ending 4242' }).pipe(toArray()));
      expect((model.seen[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toContain('bank_block_card');
      expect(outputs[0]).toMatchObject({ type: 'tool-call', name: 'bank_block_card', result: 'card ending 4242 blocked' });
      await expect(llmDialogue({ llmUrl: model.baseUrl, mcp: ['nope=definitely-not-a-command-xyz'] })).rejects.toThrow(/--mcp nope: cannot start MCP server nope/);
    } finally {
      await model.close();
    }
  }, 30_000);
});
