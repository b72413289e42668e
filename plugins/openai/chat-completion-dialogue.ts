import { Observable, type Subscriber } from 'rxjs';
import { context, trace, type Context } from '@opentelemetry/api';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ConversationMessage, Dialogue, DialogueInput, DialogueOutput, Expectation } from '../../src/agent/index.js';
import { toChatMessages, toolResultContent, userMessage } from './chat-messages.js';
import { CompletionStream, outgoingTraceparent, type ChatEndpoint, type CompletionEvent, type RetryOptions } from './completion-stream.js';
import { EXPECT_TOOL, expectationsOf, expectTool } from './expect-tool.js';
import { runTool, toolDefinition, type ChatTool, type ToolOutcome } from './tools.js';

export interface ChatCompletionDialogueOptions {
  /** Base URL of an OpenAI-compatible API, ending in `/v1` (the part before `/chat/completions`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; `$OPENAI_API_KEY` when omitted, no header when neither is set. */
  apiKey?: string;
  model: string;
  /** Asked when the main endpoint still fails after its retries, before the first token (another model or server). */
  fallback?: ChatEndpoint;
  retry: RetryOptions;
  systemPrompt: string;
  greeting?: string;
  repromptText: string;
  temperature?: number;
  maxTokens?: number;
  tools: readonly ChatTool[];
  /** Offers the model an `end_call` tool; calling it ends the call after the reply. */
  endCallTool: boolean;
  /** Offers the model an `expect_answer` tool to say what answer it expects (a `{ type: 'expect' }` output). */
  expectTool: boolean;
  /** Follow-up requests allowed after tools with `run` answered. */
  maxToolRounds: number;
  /** Limit for each request, ms. */
  requestTimeoutMs: number;
  headers: Readonly<Record<string, string>>;
  name: string;
  /** The HTTP client (default: the global `fetch`). */
  fetch?: typeof fetch;
  /** Retries and fallbacks, as they happen (they are also span events on `llm.request`). */
  onEvent?(event: CompletionEvent): void;
  /**
   * What the caller is expected to say next, asked after each reply (the application knows what its
   * prompt asked for). An `{ type: 'expect' }` output of a reply takes precedence over it.
   */
  expectations?: (history: readonly ConversationMessage[]) => readonly Expectation[] | undefined;
}

export const defaults: ChatCompletionDialogueOptions = {
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-4o-mini',
  retry: { retries: 2, minDelayMs: 250, maxDelayMs: 1000 },
  systemPrompt:
    'You are a friendly voice agent on a phone call. Answer in one to three short spoken sentences, without lists, ' +
    'markdown or emoji. The caller\'s words come from speech recognition and may contain mistakes; guess sensibly.',
  repromptText: 'Are you still there?',
  tools: [],
  endCallTool: false,
  expectTool: false,
  maxToolRounds: 3,
  requestTimeoutMs: 30_000,
  headers: {},
  name: 'openai',
};

const END_CALL_TOOL: ChatTool = {
  name: 'end_call',
  description: 'Hang up after your reply, when the caller says goodbye or the conversation is over.',
  parameters: { type: 'object', properties: { reason: { type: 'string' } } },
  speculative: true,
};

/**
 * A `Dialogue` backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp server,
 * Ollama, ...) through the `openai` SDK, streaming the reply's deltas as they arrive. Unsubscribing aborts the
 * request. Each request carries a `traceparent` of the OpenTelemetry context active when `respond()` was
 * called (or subscribed). In a speculative turn, tools that are not `speculative` wait until the turn is kept.
 */
export class ChatCompletionDialogue implements Dialogue {
  readonly name: string;
  private readonly options: ChatCompletionDialogueOptions;
  private readonly completions: CompletionStream;
  private readonly tools: readonly ChatTool[];

  constructor(options: Partial<ChatCompletionDialogueOptions> = {}) {
    this.options = { ...defaults, ...options };
    this.name = this.options.name;
    const { baseUrl, apiKey, model, fallback, retry, fetch, headers } = this.options;
    const primary: ChatEndpoint = { baseUrl, model, ...(apiKey !== undefined ? { apiKey } : {}) };
    this.completions = new CompletionStream(fallback ? [primary, fallback] : [primary], retry, { headers, ...(fetch ? { fetch } : {}) }, (event) =>
      this.options.onEvent?.(event),
    );
    this.tools = [...this.options.tools, ...(this.options.endCallTool ? [END_CALL_TOOL] : []), ...(this.options.expectTool ? [expectTool] : [])];
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
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: this.options.systemPrompt },
      ...toChatMessages(input.history),
      userMessage(input.userText, input.expected),
    ];
    const tools: ChatCompletionTool[] = this.tools.map(toolDefinition);
    const o = this.options;
    let endReason: string | undefined;
    let spoken = '';
    for (let round = 0; round <= o.maxToolRounds; round++) {
      const request = { messages, tools, temperature: o.temperature, maxTokens: o.maxTokens, traceContext, signal, timeoutMs: o.requestTimeoutMs };
      const before = spoken;
      const { text, toolCalls } = await this.completions.complete(request, (delta) => {
        // Text of two model replies in one turn is two sentences: keep a space between them.
        const joined = spoken === before && before && !/\s$/.test(before) && !/^\s/.test(delta) ? ` ${delta}` : delta;
        spoken += joined;
        out.next({ type: 'text', delta: joined });
      });
      if (toolCalls.length === 0) break;
      messages.push({ role: 'assistant', content: text || null, tool_calls: toolCalls });
      let followUp = false;
      for (const call of toolCalls) {
        const args = parseArguments(call.function.arguments);
        const name = call.function.name;
        if (name === END_CALL_TOOL.name && o.endCallTool) {
          endReason = typeof args.value?.reason === 'string' ? args.value.reason : 'the model ended the call';
          messages.push({ role: 'tool', tool_call_id: call.id, content: toolResultContent({ result: { ok: true } }) });
          continue;
        }
        const tool = this.tools.find((t) => t.name === name);
        if (tool === undefined) {
          const error = `there is no tool named "${name}"; the tools you may call are: ${this.tools.map((t) => t.name).join(', ') || 'none'}`;
          out.next({ type: 'tool-call', id: call.id, name, arguments: args.value ?? {}, error });
          messages.push({ role: 'tool', tool_call_id: call.id, content: toolResultContent({ error }) });
          followUp = true;
          continue;
        }
        if (tool.run === undefined) {
          out.next({ type: 'tool-call', id: call.id, name, arguments: args.value ?? {} });
          messages.push({ role: 'tool', tool_call_id: call.id, content: toolResultContent({ result: null }) });
          continue;
        }
        if (!tool.speculative && input.speculative && !(await input.speculative.kept())) return;
        if (signal.aborted) return;
        if (name === EXPECT_TOOL && args.value) {
          const expectations = expectationsOf(args.value);
          if (expectations) out.next({ type: 'expect', expectations });
        }
        const context = { callId: call.id, signal, traceparent: outgoingTraceparent(traceContext), ...(input.callId ? { conversationId: input.callId } : {}) };
        const outcome: ToolOutcome = args.value ? await runTool(tool.run, args.value, context) : { error: args.error };
        if (signal.aborted) return;
        out.next({ type: 'tool-call', id: call.id, name, arguments: args.value ?? {}, ...outcome });
        messages.push({ role: 'tool', tool_call_id: call.id, content: toolResultContent(outcome) });
        followUp = true;
      }
      if (!followUp || endReason !== undefined) break;
    }
    if (endReason !== undefined && !signal.aborted) out.next({ type: 'end-call', reason: endReason });
  }
}

/** A tool call's arguments as an object, or the error the model is told when they are not one. */
function parseArguments(raw: string): { value: Record<string, unknown>; error?: undefined } | { value?: undefined; error: string } {
  if (!raw.trim()) return { value: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (value && typeof value === 'object' && !Array.isArray(value)) return { value: value as Record<string, unknown> };
  } catch {
    // reported below
  }
  return { error: `the arguments are not a JSON object: ${raw.slice(0, 120)}` };
}

