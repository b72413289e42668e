import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  ChatCompletionConnectionError, ChatCompletionDialogue, ChatCompletionHttpError, ChatCompletionStreamError, type ChatCompletionDialogueOptions,
} from '../../plugins/index.js';
import type { DialogueOutput } from '../../src/agent/index.js';
import { chunk, FakeOpenAiServer, sleep, startStream, type Handler } from '../support/fake-openai-server.js';

const fake = new FakeOpenAiServer();
let baseUrl: string;
const handlers = fake.handlers;
const seen = fake.seen;

beforeAll(async () => {
  await fake.start();
  baseUrl = fake.baseUrl;
});
afterAll(() => fake.close());
afterEach(() => fake.reset());

const dialogue = (options: Partial<ChatCompletionDialogueOptions> = {}) =>
  new ChatCompletionDialogue({ baseUrl, apiKey: 'sk-test', model: 'test-model', systemPrompt: 'Be brief.', ...options });
const collect = (d: ChatCompletionDialogue, userText = 'hello') =>
  lastValueFrom(d.respond({ history: [{ role: 'user', text: 'hi' }, { role: 'agent', text: 'Hello!' }], userText }).pipe(toArray()));

describe('OpenAI-compatible dialogue against a local SSE server', () => {
  it('streams text deltas as they arrive and sends the conversation in the OpenAI shape', async () => {
    handlers.push(async (res) => {
      startStream(res);
      for (const piece of ['A table', ' for two,', ' coming up.']) {
        res.write(chunk({ content: piece }));
        await sleep(5);
      }
      res.end('data: [DONE]\n\n');
    });
    const outputs = await collect(dialogue(), 'book a table for two');
    expect(outputs).toEqual([
      { type: 'text', delta: 'A table' },
      { type: 'text', delta: ' for two,' },
      { type: 'text', delta: ' coming up.' },
    ]);
    const [request] = seen;
    expect(request!.headers.authorization).toBe('Bearer sk-test');
    expect(request!.body).toMatchObject({
      model: 'test-model',
      stream: true,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'book a table for two' },
      ],
    });
    expect(request!.body.tools).toBeUndefined();
  });

  it('marks caller turns heard outside the expectations, so that the model confirms before acting on them', async () => {
    const answer: Handler = (res) => {
      startStream(res);
      res.end(`${chunk({ content: 'Did you say four one nine two?' })}data: [DONE]\n\n`);
    };
    handlers.push(answer, answer);
    const history = [
      { role: 'user' as const, text: 'hi', expected: true },
      { role: 'agent' as const, text: 'Your code?' },
      { role: 'user' as const, text: 'what what are you do', expected: false },
      { role: 'agent' as const, text: 'Sorry, your code?' },
    ];
    await lastValueFrom(dialogue().respond({ history, userText: 'for one nine to', expected: false }).pipe(toArray()));
    await lastValueFrom(dialogue().respond({ history: [], userText: 'four one nine two', expected: true }).pipe(toArray()));
    const mark = '[heard outside the expected answers: may be misheard, confirm before acting on it]';
    expect(seen[0]!.body.messages?.slice(1)).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Your code?' },
      { role: 'user', content: `what what are you do ${mark}` },
      { role: 'assistant', content: 'Sorry, your code?' },
      { role: 'user', content: `for one nine to ${mark}` },
    ]);
    expect(seen[1]!.body.messages?.at(-1)).toEqual({ role: 'user', content: 'four one nine two' });
  });

  it('reassembles a tool call streamed in fragments and surfaces it as a tool-call output', async () => {
    handlers.push((res) => {
      startStream(res);
      res.write(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'book_table', arguments: '' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"party_size"' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: ': 2, "time": "7 pm"}' } }] }));
      res.end('data: [DONE]\n\n');
    });
    const d = dialogue({ tools: [{ name: 'book_table', description: 'Books a table', parameters: { type: 'object' } }] });
    const outputs = await collect(d);
    expect(outputs).toEqual([{ type: 'tool-call', id: 'call_1', name: 'book_table', arguments: { party_size: 2, time: '7 pm' } }]);
    expect(seen[0]!.body.tools).toEqual([{ type: 'function', function: { name: 'book_table', description: 'Books a table', parameters: { type: 'object' } } }]);
  });

  it('runs a tool that has a handler, sends its result back, and streams the follow-up reply', async () => {
    handlers.push((res) => {
      startStream(res);
      res.write(chunk({ tool_calls: [{ index: 0, id: 'call_9', function: { name: 'opening_hours', arguments: '{}' } }] }));
      res.end('data: [DONE]\n\n');
    });
    handlers.push((res) => {
      startStream(res);
      res.end(chunk({ content: 'We open at noon.' }) + 'data: [DONE]\n\n');
    });
    const d = dialogue({ tools: [{ name: 'opening_hours', run: () => ({ opens: '12:00' }) }] });
    const outputs = await collect(d);
    expect(outputs).toEqual([
      { type: 'tool-call', id: 'call_9', name: 'opening_hours', arguments: {}, result: { opens: '12:00' } },
      { type: 'text', delta: 'We open at noon.' },
    ]);
    const followUp = seen[1]!.body.messages as Array<Record<string, unknown>>;
    expect(followUp.slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'opening_hours', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_9', content: '{"opens":"12:00"}' },
    ]);
  });

  it('turns the model calling end_call into an end-call output after the text', async () => {
    handlers.push((res) => {
      startStream(res);
      res.write(chunk({ content: 'Goodbye!' }));
      res.write(chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'end_call', arguments: '{"reason":"caller said bye"}' } }] }));
      res.end('data: [DONE]\n\n');
    });
    const outputs = await collect(dialogue({ endCallTool: true }), 'bye');
    expect(outputs).toEqual([{ type: 'text', delta: 'Goodbye!' }, { type: 'end-call', reason: 'caller said bye' }]);
    expect((seen[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['end_call']);
  });

  it('unsubscribing aborts the HTTP request and stops the deltas', async () => {
    let stopWriting = false;
    handlers.push(async (res) => {
      startStream(res);
      for (let i = 0; i < 200 && !stopWriting && !res.destroyed; i++) {
        res.write(chunk({ content: ` word${i}` }));
        await sleep(10);
      }
      res.end();
    });
    const received: DialogueOutput[] = [];
    await new Promise<void>((resolve, reject) => {
      const subscription = dialogue().respond({ history: [], userText: 'talk' }).subscribe({
        next: (o) => {
          received.push(o);
          if (received.length === 2) {
            subscription.unsubscribe();
            resolve();
          }
        },
        error: reject,
      });
    });
    const closedEarly = await Promise.race([seen[0]!.closedEarly, sleep(2000).then(() => 'timeout')]);
    stopWriting = true;
    expect(closedEarly).toBe(true);
    await sleep(50);
    expect(received).toHaveLength(2);
  });

  it('reports an HTTP error with its status and the server message', async () => {
    handlers.push((res) => {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }));
    });
    const error = await collect(dialogue()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatCompletionHttpError);
    expect((error as ChatCompletionHttpError).status).toBe(401);
    expect((error as Error).message).toMatch(/HTTP 401: Incorrect API key provided/);
  });

  it('reports an unreachable endpoint clearly', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await collect(dialogue({ baseUrl: `http://127.0.0.1:${port}/v1` })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatCompletionConnectionError);
    expect((error as Error).message).toMatch(/cannot reach the chat completion endpoint http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions/);
  });
});

describe('stream shapes', () => {
  it('accepts a whole JSON completion from a server that does not stream', async () => {
    handlers.push((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'Hello there.' } }] }));
    });
    expect(await collect(dialogue())).toEqual([{ type: 'text', delta: 'Hello there.' }]);
  });

  it('fails with the endpoint message when the stream carries an error event', async () => {
    handlers.push((res) => {
      startStream(res);
      res.end(chunk({ content: 'Hel' }) + `data: ${JSON.stringify({ error: { message: 'model overloaded' } })}\n\n`);
    });
    const error = await collect(dialogue()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChatCompletionStreamError);
    expect((error as Error).message).toMatch(/model overloaded/);
  });
});

describe('trace context on the LLM request', () => {
  const spanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED };
  const answer: Handler = (res) => {
    startStream(res);
    res.end(chunk({ content: 'ok' }) + 'data: [DONE]\n\n');
  };

  it('forwards the active context as traceparent through the registered propagator', async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      handlers.push(answer);
      const callContext = trace.setSpanContext(ROOT_CONTEXT, spanContext);
      await context.with(callContext, () => collect(dialogue()));
      expect(seen[0]!.headers.traceparent).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    } finally {
      propagation.disable();
      context.disable();
    }
  });

  it('uses the context of the respond() call when subscribed outside it, and formats the header itself without a propagator', async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      handlers.push(answer);
      const reply$ = context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), () =>
        dialogue().respond({ history: [], userText: 'hello' }),
      );
      await lastValueFrom(reply$.pipe(toArray()));
      expect(seen[0]!.headers.traceparent).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    } finally {
      context.disable();
    }
  });

  it('sends no traceparent when there is no active trace', async () => {
    handlers.push(answer);
    await collect(dialogue());
    expect(seen[0]!.headers.traceparent).toBeUndefined();
  });
});
