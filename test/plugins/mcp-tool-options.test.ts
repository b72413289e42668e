/**
 * MCP tools in flows and scenario files, against the bank server of test/support/mcp-bank-server.ts: tools
 * declared speculative, a scenario's `llm: {mcp}` with the run's resources, and the default LLM agent's tools.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { openDialogueFile, type FlowDialogue } from '../../plugins/index.js';
import { AgentResources, loadScenarios, scenarioDialogue } from '../../src/testing/index.js';
import { callsTools, FakeOpenAiServer, says } from '../support/fake-openai-server.js';

const context = () => ({ callId: 'c1', signal: new AbortController().signal });

describe('speculative MCP tools', () => {
  it('a discarded speculative reply runs the tools declared speculative and none of the others; a kept one runs both', async () => {
    const model = await new FakeOpenAiServer().start();
    const file = join(mkdtempSync(join(tmpdir(), 'shoal-flow-mcp-')), 'bank.yaml');
    writeFileSync(
      file,
      `name: bank
start: account
llm: { url: "${model.baseUrl}", model: m }
mcp:
  bank: { command: "${process.execPath}", args: [--import, tsx, "${resolve('test/support/mcp-bank-server.ts')}"], speculative: [balance] }
states:
  account:
    say: How can I help?
    llm: { task: Help with the account., tools: [bank.balance, bank.block_card, bank.ran] }
`,
    );
    const opened = await openDialogueFile(file);
    try {
      const dialogue = opened.create() as FlowDialogue;
      const both = callsTools([
        { id: 'c1', name: 'bank_balance', arguments: {} },
        { id: 'c2', name: 'bank_block_card', arguments: { last4: '4242' } },
      ]);
      const history = [{ role: 'agent' as const, text: 'How can I help?' }];
      model.handlers.push(both);
      const discarded = await lastValueFrom(dialogue.respond({ history, userText: 'my balance and block my card 4242', speculative: { kept: async () => false } }).pipe(toArray()));
      expect(discarded.filter((o) => o.type === 'tool-call').map((o) => o.type === 'tool-call' && o.name)).toEqual(['bank.balance']);
      // What the flow's own server process ran (the bank server's `ran` tool, through the dialogue's tool table).
      const ran = async () => JSON.parse((await dialogue.parts().tools.get('bank.ran')!.run!({}, context())) as string) as string[];
      expect(await ran()).toEqual(['balance']);
      model.handlers.push(both, says('Done.'));
      const kept = await lastValueFrom(dialogue.respond({ history, userText: 'my balance and block my card 4242', speculative: { kept: async () => true } }).pipe(toArray()));
      expect(kept.filter((o) => o.type === 'tool-call').map((o) => o.type === 'tool-call' && o.name)).toEqual(['bank.balance', 'bank.block_card']);
      expect(await ran()).toEqual(['balance', 'balance', 'block_card 4242']);
    } finally {
      await opened.close();
      await model.close();
    }
  }, 30_000);
});

describe("a scenario file's llm: {mcp}", () => {
  it("offers the server's tools to the scenario's model as name_tool; the run's resources stop the server", async () => {
    const model = await new FakeOpenAiServer().start();
    const file = join(mkdtempSync(join(tmpdir(), 'shoal-scenario-mcp-')), 'bank.scenarios.yaml');
    const server = `${process.execPath} --import tsx ${resolve('test/support/mcp-bank-server.ts')}`;
    writeFileSync(file, `llm: { url: "${model.baseUrl}", key: k, mcp: { bank: "${server}" } }\nscenarios:\n  - name: blocks\n    steps:\n      - expect: { says: "/help/i" }\n`);
    const [scenario] = await loadScenarios(file);
    const resources = new AgentResources();
    try {
      const agent = await scenarioDialogue(scenario!, {}, undefined, resources);
      model.handlers.push(callsTools([{ id: 'c1', name: 'bank_block_card', arguments: { last4: '4242' } }]), says('Blocked.'));
      const outputs = await lastValueFrom(agent.respond({ history: [], userText: 'block my card ending 4242' }).pipe(toArray()));
      expect(outputs[0]).toMatchObject({ type: 'tool-call', name: 'bank_block_card', result: 'card ending 4242 blocked' });
    } finally {
      await resources.close();
      await model.close();
    }
    await expect(scenarioDialogue(scenario!, {}, undefined, resources)).rejects.toThrow(/the scenario run has ended/);
  }, 30_000);
});

describe('the default LLM agent of shoal test (--llm-url)', () => {
  it('takes --tools and --greeting, as shoal agent does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-default-llm-'));
    writeFileSync(join(dir, 'tools.yaml'), 'lookup_order: { description: Looks up an order, parameters: { type: object, properties: { id: { type: string } } } }\n');
    writeFileSync(join(dir, 'suite.yaml'), 'scenarios:\n  - name: greets\n    steps:\n      - expect: { says: "/orders/i" }\n');
    const [scenario] = await loadScenarios(join(dir, 'suite.yaml'));
    const model = await new FakeOpenAiServer().start();
    const resources = new AgentResources();
    try {
      const agent = await scenarioDialogue(scenario!, {}, { llm: { url: model.baseUrl, key: 'k', tools: join(dir, 'tools.yaml'), greeting: 'Orders desk.' } }, resources);
      expect(agent.greeting?.()).toBe('Orders desk.');
      model.handlers.push(says('Which order?'));
      await lastValueFrom(agent.respond({ history: [], userText: 'where is my order' }).pipe(toArray()));
      expect((model.seen[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toContain('lookup_order');
    } finally {
      await resources.close();
      await model.close();
    }
  });
});
