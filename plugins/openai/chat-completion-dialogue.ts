import { Observable, type Subscriber } from 'rxjs';
import { context, propagation, trace, isSpanContextValid, type Context } from '@opentelemetry/api';
import type { ConversationMessage, Dialogue, DialogueInput, DialogueOutput, Expectation } from '../../src/agent/index.js';
import { formatTraceparent } from '../../src/tracing/index.js';
import { readServerSentEvents } from './sse-reader.js';
import { ChatCompletionConnectionError, ChatCompletionHttpError, ChatCompletionStreamError } from './errors.js';

export interface ChatTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters?: Record<string, unknown>;
  /** Runs the tool; the result goes back to the model, which continues the reply. Without `run` the call is only surfaced. */
  run?(args: Record<string, unknown>): unknown;
}

export interface ChatCompletionDialogueOptions {
  /** Base URL of an OpenAI-compatible API (the part before `/chat/completions`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; `$OPENAI_API_KEY` when omitted, no header when neither is set. */
  apiKey?: string;
  model: string;
  systemPrompt: string;
  greeting?: string;
  repromptText: string;
  temperature?: number;
  maxTokens?: number;
  tools: readonly ChatTool[];
  /** Offers the model an `end_call` tool; calling it ends the call after the reply. */
  endCallTool: boolean;
  /** Follow-up requests allowed after tools with `run` answered. */
  maxToolRounds: number;
  /** Whole-request limit, ms. */
  requestTimeoutMs: number;
  headers: Readonly<Record<string, string>>;
  name: string;
  fetch: typeof fetch;
  /**
   * What the caller is expected to say next, asked after each reply (the application knows what its
   * prompt asked for). An `{ type: 'expect' }` output of a reply takes precedence over it.
   */
  expectations?: (history: readonly ConversationMessage[]) => readonly Expectation[] | undefined;
}

export const defaults: ChatCompletionDialogueOptions = {
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-4o-mini',
  systemPrompt:
    'You are a friendly voice agent on a phone call. Answer in one to three short spoken sentences, without lists, ' +
    'markdown or emoji. The caller\'s words come from speech recognition and may contain mistakes; guess sensibly.',
  repromptText: 'Are you still there?',
  tools: [],
  endCallTool: false,
  maxToolRounds: 3,
  requestTimeoutMs: 60_000,
  headers: {},
  name: 'openai',
  fetch: (...args) => fetch(...args),
};

type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface WireDelta {
  content?: string | null;
  tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
}

interface StreamChunk {
  choices?: Array<{ delta?: WireDelta; message?: WireDelta }>;
  error?: { message?: string } | string;
}

/**
 * A `Dialogue` backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp server,
 * Ollama, ...), streaming the reply's deltas as they arrive. Unsubscribing aborts the HTTP request. Each request
 * carries a `traceparent` of the OpenTelemetry context active when `respond()` was called (or subscribed).
 */
export class ChatCompletionDialogue implements Dialogue {
  readonly name: string;
  private readonly options: ChatCompletionDialogueOptions;

  constructor(options: Partial<ChatCompletionDialogueOptions> = {}) {
    this.options = { ...defaults, ...options };
    this.name = this.options.name;
  }

  greeting(): string | undefined {
    return this.options.greeting;
  }

  expectations(history: readonly ConversationMessage[]): readonly Expectation[] | undefined {
    return this.options.expectations?.(history);
  }

  reprompt(): string {
    return this.options.repromptText;
  }

  respond(input: DialogueInput): Observable<DialogueOutput> {
    const calledIn = context.active();
    return new Observable<DialogueOutput>((subscriber) => {
      const subscribedIn = context.active();
      const traceContext = trace.getSpanContext(subscribedIn) ? subscribedIn : calledIn;
      const abort = new AbortController();
      this.converse(input, traceContext, abort.signal, subscriber).then(
        () => subscriber.complete(),
        (error: unknown) => {
          if (!abort.signal.aborted) subscriber.error(error);
        },
      );
      return () => abort.abort();
    });
  }

  private async converse(input: DialogueInput, traceContext: Context, signal: AbortSignal, out: Subscriber<DialogueOutput>): Promise<void> {
    const messages: ChatMessage[] = [{ role: 'system', content: this.options.systemPrompt }, ...toChatMessages(input.history)];
    messages.push({ role: 'user', content: input.userText });
    let endReason: string | undefined;
    for (let round = 0; round <= this.options.maxToolRounds; round++) {
      const { text, toolCalls } = await this.streamCompletion(messages, traceContext, signal, (delta) => out.next({ type: 'text', delta }));
      if (toolCalls.length === 0) break;
      messages.push({ role: 'assistant', content: text || null, tool_calls: toolCalls });
      let followUp = false;
      for (const call of toolCalls) {
        const args = parseArguments(call);
        if (this.options.endCallTool && call.function.name === 'end_call') {
          endReason = typeof args.reason === 'string' ? args.reason : 'the model ended the call';
          continue;
        }
        const tool = this.options.tools.find((t) => t.name === call.function.name);
        if (tool?.run) {
          const result = await tool.run(args);
          if (signal.aborted) return;
          out.next({ type: 'tool-call', name: call.function.name, arguments: args, result });
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result ?? null) });
          followUp = true;
        } else {
          out.next({ type: 'tool-call', name: call.function.name, arguments: args });
        }
      }
      if (!followUp || endReason !== undefined) break;
    }
    if (endReason !== undefined && !signal.aborted) out.next({ type: 'end-call', reason: endReason });
  }

  private requestHeaders(traceContext: Context): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream', ...this.options.headers };
    const apiKey = this.options.apiKey ?? process.env.OPENAI_API_KEY;
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    propagation.inject(traceContext, headers);
    const span = trace.getSpanContext(traceContext);
    if (!headers.traceparent && span && isSpanContextValid(span)) {
      headers.traceparent = formatTraceparent({ traceId: span.traceId, parentId: span.spanId, flags: span.traceFlags });
    }
    return headers;
  }

  private requestBody(messages: readonly ChatMessage[]): Record<string, unknown> {
    const tools = this.options.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description ?? '', parameters: t.parameters ?? { type: 'object', properties: {} } },
    }));
    if (this.options.endCallTool) {
      tools.push({
        type: 'function',
        function: {
          name: 'end_call',
          description: 'Hang up after your reply, when the caller says goodbye or the conversation is over.',
          parameters: { type: 'object', properties: { reason: { type: 'string' } } },
        },
      });
    }
    return {
      model: this.options.model,
      stream: true,
      messages,
      ...(tools.length > 0 ? { tools } : {}),
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
      ...(this.options.maxTokens !== undefined ? { max_tokens: this.options.maxTokens } : {}),
    };
  }

  private async streamCompletion(
    messages: readonly ChatMessage[],
    traceContext: Context,
    signal: AbortSignal,
    onDelta: (delta: string) => void,
  ): Promise<{ text: string; toolCalls: WireToolCall[] }> {
    const url = `${this.options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    let response: Response;
    try {
      response = await this.options.fetch(url, {
        method: 'POST',
        headers: this.requestHeaders(traceContext),
        body: JSON.stringify(this.requestBody(messages)),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.options.requestTimeoutMs)]),
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ChatCompletionConnectionError(url, error);
    }
    if (!response.ok) throw new ChatCompletionHttpError(response.status, url, await errorDetail(response));
    let text = '';
    const calls: WireToolCall[] = [];
    const take = (delta: WireDelta | undefined): void => {
      if (delta?.content) {
        text += delta.content;
        onDelta(delta.content);
      }
      delta?.tool_calls?.forEach((part, position) => {
        const index = part.index ?? position;
        const call = (calls[index] ??= { id: part.id ?? `call_${index}`, type: 'function', function: { name: '', arguments: '' } });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.function.name += part.function.name;
        if (part.function?.arguments) call.function.arguments += part.function.arguments;
      });
    };
    if (response.headers.get('content-type')?.includes('application/json')) {
      // The server ignored `stream: true` and sent the whole completion at once.
      const whole = parseChunk(await response.text());
      take(whole.choices?.[0]?.message);
      return { text, toolCalls: calls.filter((c) => c !== undefined) };
    }
    if (!response.body) throw new ChatCompletionStreamError('the response has no body');
    for await (const data of readServerSentEvents(response.body)) {
      if (data.trim() === '[DONE]') break;
      take(parseChunk(data).choices?.[0]?.delta);
    }
    return { text, toolCalls: calls.filter((c) => c !== undefined) };
  }
}

function parseChunk(data: string): StreamChunk {
  let chunk: StreamChunk;
  try {
    chunk = JSON.parse(data) as StreamChunk;
  } catch {
    throw new ChatCompletionStreamError(`event data is not JSON: ${data.slice(0, 120)}`);
  }
  if (chunk.error) {
    throw new ChatCompletionStreamError(`the endpoint reported: ${typeof chunk.error === 'string' ? chunk.error : chunk.error.message ?? 'an error'}`);
  }
  return chunk;
}

function toChatMessages(history: readonly ConversationMessage[]): ChatMessage[] {
  return history.map((m) =>
    m.role === 'user' ? { role: 'user', content: m.text } : { role: 'assistant', content: m.interrupted ? `${m.text} [interrupted by the caller]` : m.text },
  );
}

function parseArguments(call: WireToolCall): Record<string, unknown> {
  if (!call.function.arguments.trim()) return {};
  try {
    const value: unknown = JSON.parse(call.function.arguments);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new ChatCompletionStreamError(`arguments of tool call "${call.function.name}" are not a JSON object: ${call.function.arguments.slice(0, 120)}`);
}

async function errorDetail(response: Response): Promise<string> {
  const body = await response.text().catch((error: unknown) => `(body unreadable: ${String(error)})`);
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string };
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message;
    if (message) return message;
  } catch {
    // not JSON: use the text as it is
  }
  return body.slice(0, 300) || response.statusText;
}
