import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { ROOT_CONTEXT, context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ChatCompletionDialogue, ChatCompletionHttpError, defineTool, runTool, transferTool, type ChatCompletionDialogueOptions, type CompletionEvent, type ToolContext } from '../../plugins/index.js';
import type { DialogueInput, DialogueOutput } from '../../src/agent/index.js';
import { callsTools, FakeOpenAiServer, fails, says, sleep } from '../support/fake-openai-server.js';

const fake = new FakeOpenAiServer();
beforeAll(() => fake.start());
afterAll(() => fake.close());
afterEach(() => fake.reset());

const fast = { retries: 2, minDelayMs: 5, maxDelayMs: 10 };
const dialogue = (options: Partial<ChatCompletionDialogueOptions> = {}) =>
  new ChatCompletionDialogue({ baseUrl: fake.baseUrl, apiKey: 'sk-test', model: 'main-model', retry: fast, ...options });
const collect = (d: ChatCompletionDialogue, input: Partial<DialogueInput> = {}) =>
  lastValueFrom(d.respond({ history: [], userText: 'hello', ...input }).pipe(toArray()));
/** The outputs with consecutive text deltas joined (the fake server streams word by word). */
const joined = (outputs: DialogueOutput[]) =>
  outputs.reduce<DialogueOutput[]>((all, output) => {
    const last = all.at(-1);
    if (output.type === 'text' && last?.type === 'text') all[all.length - 1] = { type: 'text', delta: last.delta + output.delta };
    else all.push(output);
    return all;
  }, []);
const toolMessages = (index: number) => fake.seen[index]!.body.messages!.filter((m) => m.role === 'tool');

describe('tools typed with zod', () => {
  const book = (run: (args: { party: number; time: string }, context: ToolContext) => unknown) =>
    defineTool({ name: 'book_table', description: 'Books a table', parameters: z.object({ party: z.number().int().min(1), time: z.string() }), run });

  it('offers the schema as JSON Schema and runs with parsed arguments and a context (call id, trace, signal)', async () => {
    const seen: Array<{ args: unknown; context: ToolContext }> = [];
    fake.handlers.push(callsTools([{ id: 'call_7', name: 'book_table', arguments: { party: 2, time: '7 pm' } }]), says('Done.'));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const traced = trace.setSpanContext(ROOT_CONTEXT, { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED });
      await context.with(traced, () => collect(dialogue({ tools: [book((args, ctx) => seen.push({ args, context: ctx }))] }), { callId: 'the-call' }));
    } finally {
      context.disable();
    }
    expect(fake.seen[0]!.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'book_table',
          description: 'Books a table',
          parameters: {
            type: 'object',
            properties: { party: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }, time: { type: 'string' } },
            required: ['party', 'time'],
          },
        },
      },
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.args).toEqual({ party: 2, time: '7 pm' });
    expect(seen[0]!.context).toMatchObject({ callId: 'call_7', conversationId: 'the-call', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
    expect(seen[0]!.context.signal).toBeInstanceOf(AbortSignal);
  });

  it('returns a throwing tool\'s error to the model, which answers with it', async () => {
    fake.handlers.push(callsTools([{ id: 'call_1', name: 'book_table', arguments: { party: 2, time: '7 pm' } }]), says('Sorry, we are full.'));
    const outputs = await collect(dialogue({ tools: [book(() => { throw new Error('no tables left at 7 pm'); })] }));
    expect(joined(outputs)).toEqual([
      { type: 'tool-call', id: 'call_1', name: 'book_table', arguments: { party: 2, time: '7 pm' }, error: 'no tables left at 7 pm' },
      { type: 'text', delta: 'Sorry, we are full.' },
    ]);
    expect(toolMessages(1)).toEqual([{ role: 'tool', tool_call_id: 'call_1', content: '{"error":"no tables left at 7 pm"}' }]);
  });

  it('tells the model when its arguments do not fit the schema, without running the tool', async () => {
    let runs = 0;
    fake.handlers.push(callsTools([{ id: 'call_1', name: 'book_table', arguments: { party: 0 } }]), says('How many people?'));
    await collect(dialogue({ tools: [book(() => runs++)] }));
    expect(runs).toBe(0);
    expect(JSON.parse(toolMessages(1)[0]!.content as string).error).toMatch(/invalid arguments for book_table:[\s\S]*party[\s\S]*time/);
  });
});

describe('speculative turns', () => {
  const tools = () => {
    const ran: string[] = [];
    return { ran, tools: [{ name: 'charge_card', run: () => ran.push('charge') }, { name: 'lookup', speculative: true, run: () => ran.push('lookup') }] };
  };
  const bothTools = callsTools([
    { id: 'a', name: 'lookup', arguments: {} },
    { id: 'b', name: 'charge_card', arguments: {} },
  ]);

  it('runs a speculative-safe tool at once and holds a side-effecting one until the turn is kept', async () => {
    fake.handlers.push(bothTools, says('Charged.'));
    const { ran, tools: list } = tools();
    let keep!: (kept: boolean) => void;
    const kept = new Promise<boolean>((resolve) => (keep = resolve));
    const done = collect(dialogue({ tools: list }), { speculative: { kept: () => kept } });
    for (let waited = 0; ran.length === 0 && waited < 5000; waited += 10) await sleep(10);
    await sleep(50);
    expect(ran).toEqual(['lookup']);
    keep(true);
    await done;
    expect(ran).toEqual(['lookup', 'charge']);
  });

  it('never runs the side-effecting tool of a discarded turn', async () => {
    fake.handlers.push(bothTools);
    const { ran, tools: list } = tools();
    const outputs = await collect(dialogue({ tools: list }), { speculative: { kept: async () => false } });
    expect(ran).toEqual(['lookup']);
    expect(outputs.map((o) => o.type === 'tool-call' && o.name)).toEqual(['lookup']);
    expect(fake.seen).toHaveLength(1);
  });
});

describe('failures before the first token', () => {
  it('retries a 429 and then streams the answer', async () => {
    const events: CompletionEvent[] = [];
    fake.handlers.push(fails(429, 'Rate limit reached'), says('Hello there.'));
    const outputs = await collect(dialogue({ onEvent: (event) => events.push(event) }));
    expect(joined(outputs)).toEqual([{ type: 'text', delta: 'Hello there.' }]);
    expect(fake.seen).toHaveLength(2);
    expect(events).toEqual([{ type: 'retry', model: 'main-model', attempt: 1, error: expect.stringMatching(/HTTP 429: Rate limit reached/) }]);
  });

  it('does not retry a 401, and reports it with its status', async () => {
    fake.handlers.push(fails(401, 'Incorrect API key provided'));
    const error = await collect(dialogue()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatCompletionHttpError);
    expect((error as ChatCompletionHttpError).status).toBe(401);
    expect(fake.seen).toHaveLength(1);
  });

  it('falls back to the other model after the retries, with the same conversation', async () => {
    const events: CompletionEvent[] = [];
    fake.handlers.push(fails(503, 'down'), fails(503, 'down'), fails(503, 'down'), says('From the fallback.'));
    const d = dialogue({ fallback: { baseUrl: fake.baseUrl, model: 'small-model', apiKey: 'sk-other' }, onEvent: (event) => events.push(event) });
    expect(joined(await collect(d))).toEqual([{ type: 'text', delta: 'From the fallback.' }]);
    expect(fake.seen.map((r) => r.body.model)).toEqual(['main-model', 'main-model', 'main-model', 'small-model']);
    expect(fake.seen[3]!.headers.authorization).toBe('Bearer sk-other');
    expect(fake.seen[3]!.body.messages).toEqual(fake.seen[0]!.body.messages);
    expect(events.map((e) => e.type)).toEqual(['retry', 'retry', 'fallback']);
  });

  it('does not retry once text has streamed', async () => {
    fake.handlers.push(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Hel' } }] })}\n\n`);
      await sleep(100);
      res.destroy();
    });
    await expect(collect(dialogue())).rejects.toThrow();
    expect(fake.seen).toHaveLength(1);
  });
});

describe('built-in expect tool', () => {
  it('turns the model\'s expect_answer call into an expect output', async () => {
    fake.handlers.push(callsTools([{ id: 'e', name: 'expect_answer', arguments: { expectations: [{ kind: 'digits', minLength: 4, maxLength: 4 }] } }], 'What is your PIN?'), says(''));
    const outputs = await collect(dialogue({ expectTool: true }));
    expect(outputs.filter((o) => o.type === 'expect')).toEqual([{ type: 'expect', expectations: [{ kind: 'digits', minLength: 4, maxLength: 4 }] }]);
    expect((fake.seen[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['expect_answer']);
  });
});

describe('transfer_call for a model, under the operator transfer targets', () => {
  const context = { callId: 'call_1', signal: new AbortController().signal };
  const tool = transferTool({ targets: { 'front desk': '+14155550100' } });

  it('tells the model a number it was not given cannot be dialled, and names the targets', async () => {
    expect(await runTool(tool.run!, { to: '+19005550123' }, context)).toEqual({
      error: 'cannot transfer to +19005550123: transfers go only to: front desk (the operator allows other numbers with --allow-any-transfer-target)',
    });
    expect(await runTool(tool.run!, { to: 'front desk' }, context)).toEqual({ result: { transferring_to: 'front desk' } });
    expect(tool.description).toMatch(/Targets: front desk/);
  });

  it('takes any number only when the operator allows it', async () => {
    const open = transferTool({ targets: {}, allowAnyTarget: true });
    expect(await runTool(open.run!, { to: '+19005550123' }, context)).toEqual({ result: { transferring_to: '+19005550123' } });
  });
});
