import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { ROOT_CONTEXT, context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ChatCompletionDialogue, declaredTools, ToolFileError, type ChatCompletionDialogueOptions } from '../../plugins/index.js';
import type { DialogueInput, DialogueOutput } from '../../src/agent/index.js';
import { llmDialogue } from '../../src/cli/llm-options.js';
import { parseScenarios } from '../../src/testing/load.js';
import { scenarioDialogue } from '../../src/testing/agent-choice.js';
import { callsTools, FakeOpenAiServer, says } from '../support/fake-openai-server.js';

const fake = new FakeOpenAiServer();
/** The tool endpoint: records each request, answers by path (`/slow` waits 2 s, `/broken` is a 500). */
const toolRequests: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
let toolServer: Server;
let toolUrl = '';
beforeAll(async () => {
  await fake.start();
  toolServer = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      toolRequests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === '/broken') return void res.writeHead(500).end('database down');
      const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, refill: 'R-17' }));
      if (req.url === '/slow') setTimeout(answer, 2000);
      else answer();
    });
  });
  await new Promise<void>((resolve) => toolServer.listen(0, '127.0.0.1', resolve));
  toolUrl = `http://127.0.0.1:${(toolServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await fake.close();
  toolServer.closeAllConnections();
  await new Promise((resolve) => toolServer.close(resolve));
});
afterEach(() => {
  fake.reset();
  toolRequests.length = 0;
});

const fast = { retries: 0, minDelayMs: 5, maxDelayMs: 10 };
const dialogue = (options: Partial<ChatCompletionDialogueOptions> = {}) =>
  new ChatCompletionDialogue({ baseUrl: fake.baseUrl, apiKey: 'sk-test', model: 'm', retry: fast, ...options });
const collect = (d: { respond(input: DialogueInput): import('rxjs').Observable<DialogueOutput> }, input: Partial<DialogueInput> = {}) =>
  lastValueFrom(d.respond({ history: [], userText: 'hello', ...input }).pipe(toArray()));
const text = (outputs: DialogueOutput[]) => outputs.map((o) => (o.type === 'text' ? o.delta : '')).join('');
const toolMessages = (index: number) => fake.seen[index]!.body.messages!.filter((m) => m.role === 'tool');
const refill = (path = '/refill', extra: Record<string, unknown> = {}) => ({
  place_refill: {
    description: 'Places a refill',
    parameters: { type: 'object', properties: { rx: { type: 'string', pattern: '^[0-9]{7}$' } }, required: ['rx'] },
    http: { url: `${toolUrl}${path}`, method: 'POST', ...extra },
  },
});

describe('a model that calls a tool it was not offered', () => {
  it('gets an error result naming the tools it may call, and the turn goes on (no silence)', async () => {
    fake.handlers.push(callsTools([{ id: 'c1', name: 'delete_account', arguments: {} }]), says('Sorry, I cannot do that.'));
    const outputs = await collect(dialogue({ endCallTool: true }));
    expect(outputs[0]).toEqual({ type: 'tool-call', id: 'c1', name: 'delete_account', arguments: {}, error: 'there is no tool named "delete_account"; the tools you may call are: end_call' });
    expect(text(outputs)).toBe('Sorry, I cannot do that.');
    expect(JSON.parse(toolMessages(1)[0]!.content as string)).toEqual({ error: expect.stringMatching(/no tool named "delete_account"/) });
  });
});

describe('text of two model replies in one turn', () => {
  it('is joined with a space', async () => {
    fake.handlers.push(callsTools([{ id: 'c1', name: 'lookup', arguments: {} }], 'For how many people?'), says('Is there anything else?'));
    const outputs = await collect(dialogue({ tools: [{ name: 'lookup', run: () => 'ok' }] }));
    expect(text(outputs)).toBe('For how many people? Is there anything else?');
  });

  it('keeps words streamed within one reply as they are', async () => {
    fake.handlers.push(says('One two three.'));
    expect(text(await collect(dialogue()))).toBe('One two three.');
  });
});

describe('tools declared in a file (http)', () => {
  it('posts the validated arguments with the call\'s traceparent and gives the response to the model', async () => {
    const [tool] = declaredTools(refill(), 'test');
    fake.handlers.push(callsTools([{ id: 'c1', name: 'place_refill', arguments: { rx: '1234567' } }]), says('Done.'));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    let outputs: DialogueOutput[];
    try {
      const traced = trace.setSpanContext(ROOT_CONTEXT, { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED });
      outputs = await context.with(traced, () => collect(dialogue({ tools: [tool!] })));
    } finally {
      context.disable();
    }
    expect(toolRequests).toHaveLength(1);
    expect(toolRequests[0]).toMatchObject({ method: 'POST', url: '/refill', body: '{"rx":"1234567"}' });
    expect(toolRequests[0]!.headers.traceparent).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(outputs[0]).toMatchObject({ type: 'tool-call', name: 'place_refill', result: { ok: true, refill: 'R-17' } });
    expect(JSON.parse(toolMessages(1)[0]!.content as string)).toEqual({ ok: true, refill: 'R-17' });
    expect(tool!.speculative).toBe(false);
  });

  it('tells the model when the arguments do not fit the schema, without calling the endpoint', async () => {
    const [tool] = declaredTools(refill(), 'test');
    fake.handlers.push(callsTools([{ id: 'c1', name: 'place_refill', arguments: { rx: '12' } }]), says('Which number?'));
    await collect(dialogue({ tools: [tool!] }));
    expect(toolRequests).toHaveLength(0);
    expect(JSON.parse(toolMessages(1)[0]!.content as string).error).toMatch(/invalid arguments for place_refill/);
  });

  it('gives the model the status of a failed request, and a timeout as an error', async () => {
    const [broken] = declaredTools(refill('/broken'), 'test');
    const [slow] = declaredTools(refill('/slow', { timeout_ms: 100 }), 'test');
    fake.handlers.push(callsTools([{ id: 'c1', name: 'place_refill', arguments: { rx: '1234567' } }]), says('Sorry.'));
    await collect(dialogue({ tools: [broken!] }));
    expect(JSON.parse(toolMessages(1)[0]!.content as string).error).toMatch(/HTTP 500: database down/);
    fake.handlers.push(callsTools([{ id: 'c1', name: 'place_refill', arguments: { rx: '1234567' } }]), says('Sorry.'));
    const started = Date.now();
    await collect(dialogue({ tools: [slow!] }));
    expect(Date.now() - started).toBeLessThan(1500);
    expect(JSON.parse(toolMessages(3)[0]!.content as string).error).toMatch(/did not answer within 100 ms/);
  });

  it('rejects a declaration with a bad field, naming it', () => {
    expect(() => declaredTools({ place_refill: { http: { url: 'not a url' } } }, 'tools.yaml')).toThrow(ToolFileError);
    expect(() => declaredTools({ place_refill: { descripton: 'x' } }, 'tools.yaml')).toThrow(/place_refill: Unrecognized key: "descripton"/);
  });
});

describe('an LLM agent from the command line and from a scenario file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-llm-tools-'));
  const toolsFile = () => {
    const file = join(dir, 'tools.yaml');
    writeFileSync(file, `place_refill:\n  description: Places a refill\n  http: { url: "${toolUrl}/refill" }\n`);
    return file;
  };

  it('--tools FILE offers the file\'s tools and --greeting sets the first line', async () => {
    const agent = await llmDialogue({ llmUrl: fake.baseUrl, llmKey: 'k', tools: toolsFile(), greeting: 'Pharmacy, how can I help?' });
    expect(agent!.greeting?.()).toBe('Pharmacy, how can I help?');
    fake.handlers.push(callsTools([{ id: 'c1', name: 'place_refill', arguments: { rx: '1' } }]), says('Placed.'));
    await collect(agent!);
    expect((fake.seen[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['place_refill', 'end_call', 'expect_answer']);
    expect(toolRequests).toHaveLength(1);
    const silent = await llmDialogue({ llmUrl: fake.baseUrl, greeting: '' });
    expect(silent!.greeting?.()).toBeUndefined();
  });

  it('--tools with an unreadable file is a clear error', async () => {
    await expect(llmDialogue({ llmUrl: fake.baseUrl, tools: join(dir, 'missing.yaml') })).rejects.toThrow(/--tools: cannot read tools file .*missing.yaml: ENOENT/);
    await expect(llmDialogue({ tools: 'x.yaml' })).rejects.toThrow('--tools needs --llm-url');
  });

  it('llm.tools (a file or inline) and llm.greeting in a scenario file', async () => {
    toolsFile();
    const [fromFile, inline] = parseScenarios(
      `scenarios:
  - name: from a file
    llm: { url: "${fake.baseUrl}", tools: tools.yaml, greeting: "Hi, pharmacy." }
    steps: [{ say: hello }]
  - name: inline
    llm:
      url: "${fake.baseUrl}"
      tools: { check_stock: { description: Checks stock, speculative: true } }
    steps: [{ say: hello }]
`,
      join(dir, 'suite.yaml'),
    );
    const first = await scenarioDialogue(fromFile!);
    expect(first.greeting?.()).toBe('Hi, pharmacy.');
    fake.handlers.push(says('Hello.'), says('Hello.'));
    await collect(first);
    await collect(await scenarioDialogue(inline!));
    const names = (i: number) => (fake.seen[i]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(names(0)).toContain('place_refill');
    expect(names(1)).toContain('check_stock');
  });
});

