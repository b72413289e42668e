import { createRequire } from 'node:module';
import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { Stream } from 'openai/streaming';
import { requireOptional } from '../../src/optional/index.js';
import pRetry from 'p-retry';
import { propagation, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import { traceparentOf } from '../../src/agent/index.js';
import { ChatCompletionConnectionError, ChatCompletionHttpError, ChatCompletionStreamError } from './errors.js';

/** One OpenAI-compatible endpoint and the model to ask there. */
export interface ChatEndpoint {
  /** Base URL ending in `/v1` (the part before `/chat/completions`). */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer`; `$OPENAI_API_KEY` when omitted, no header when neither is set. */
  apiKey?: string;
}

/** Retries of a request that failed before its first token (HTTP 408/409/429/5xx, connection errors, an empty failed stream). */
export interface RetryOptions {
  retries: number;
  /** Wait before the first retry; doubles each time up to `maxDelayMs`. */
  minDelayMs: number;
  maxDelayMs: number;
}

export interface CompletionRequest {
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  temperature?: number;
  maxTokens?: number;
  /** Parent of the request's span; its trace goes out as `traceparent`. */
  traceContext: Context;
  signal: AbortSignal;
  timeoutMs: number;
}

export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** What happened to a request on its way: reported to `onEvent` and as span events. */
export type CompletionEvent =
  | { type: 'retry'; model: string; attempt: number; error: string }
  | { type: 'fallback'; from: string; to: string; error: string };

/** The `openai` SDK, an optional peer: loaded when a dialogue is made, with a clear error naming the install when absent. */
function openAiSdk(): { sdk: typeof import('openai'); Stream: typeof Stream } {
  const sdk = requireOptional<typeof import('openai')>('openai');
  const streaming = createRequire(import.meta.url)('openai/streaming') as { Stream: typeof Stream };
  return { sdk, Stream: streaming.Stream };
}

/** Streams one chat completion, retrying and falling back to the next endpoint until the first token arrives. */
export class CompletionStream {
  private readonly clients: Array<{ endpoint: ChatEndpoint; client: OpenAI }>;
  private readonly openai = openAiSdk();

  constructor(
    endpoints: readonly ChatEndpoint[],
    private readonly retry: RetryOptions,
    options: { fetch?: typeof fetch; headers?: Readonly<Record<string, string>> },
    private readonly onEvent: (event: CompletionEvent) => void,
  ) {
    this.clients = endpoints.map((endpoint) => {
      const apiKey = endpoint.apiKey ?? process.env.OPENAI_API_KEY;
      return {
        endpoint,
        client: new this.openai.sdk.OpenAI({
          baseURL: endpoint.baseUrl,
          apiKey: apiKey ?? 'unused',
          maxRetries: 0, // retried here, with backoff a caller can wait for (the SDK's goes up to 8 s)
          defaultHeaders: { ...options.headers, ...(apiKey ? {} : { Authorization: null }) },
          ...(options.fetch ? { fetch: options.fetch } : {}),
        }),
      };
    });
  }

  async complete(request: CompletionRequest, onDelta: (delta: string) => void): Promise<{ text: string; toolCalls: WireToolCall[] }> {
    let lastError: unknown;
    for (const [index, { endpoint, client }] of this.clients.entries()) {
      if (index > 0) {
        const from = this.clients[index - 1]!.endpoint.model;
        this.onEvent({ type: 'fallback', from, to: endpoint.model, error: messageOf(lastError) });
      }
      const span = trace.getTracer('shoal-openai').startSpan('llm.request', { attributes: { 'gen_ai.request.model': endpoint.model, 'server.address': endpoint.baseUrl } }, request.traceContext);
      const spanContext = trace.isSpanContextValid(span.spanContext()) ? trace.setSpan(request.traceContext, span) : request.traceContext;
      const traceparent = outgoingTraceparent(spanContext);
      let started = false;
      try {
        const result = await pRetry(
          () => this.attempt(client, endpoint, request, traceparent, (delta) => {
            started = true;
            onDelta(delta);
          }),
          {
            retries: this.retry.retries,
            minTimeout: this.retry.minDelayMs,
            maxTimeout: this.retry.maxDelayMs,
            signal: request.signal,
            shouldRetry: ({ error }) => !started && !request.signal.aborted && isRetryable(error),
            onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
              span.addEvent('attempt failed', { attempt: attemptNumber, 'exception.message': error.message });
              if (retriesLeft > 0 && !started && isRetryable(error)) this.onEvent({ type: 'retry', model: endpoint.model, attempt: attemptNumber, error: error.message });
            },
          },
        );
        span.end();
        return result;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(error) });
        span.end();
        if (started || request.signal.aborted) throw error;
        lastError = error;
      }
    }
    throw lastError;
  }

  private async attempt(
    client: OpenAI,
    endpoint: ChatEndpoint,
    request: CompletionRequest,
    traceparent: string | undefined,
    onDelta: (delta: string) => void): Promise<{ text: string; toolCalls: WireToolCall[] }> {
    const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    const body: ChatCompletionCreateParamsStreaming = {
      model: endpoint.model,
      stream: true,
      messages: request.messages,
      ...(request.tools.length > 0 ? { tools: request.tools } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    };
    const calls: WireToolCall[] = [];
    let text = '';
    const take = (delta: ChatCompletionChunk.Choice.Delta | undefined): void => {
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
    try {
      const response = await client.chat.completions
        .create(body, {
          signal: request.signal,
          timeout: request.timeoutMs,
          headers: traceparent ? { traceparent } : {},
        })
        .asResponse();
      if (response.headers.get('content-type')?.includes('application/json')) {
        // The server ignored `stream: true` and sent the whole completion at once.
        const whole = (await response.json()) as { choices?: Array<{ message?: ChatCompletionChunk.Choice.Delta }> };
        take(whole.choices?.[0]?.message);
      } else {
        const controller = new AbortController();
        request.signal.addEventListener('abort', () => controller.abort(), { once: true });
        for await (const chunk of this.openai.Stream.fromSSEResponse<ChatCompletionChunk>(response, controller)) take(chunk.choices?.[0]?.delta);
      }
    } catch (error) {
      throw wireError(this.openai.sdk, error, url, request.signal);
    }
    return { text, toolCalls: calls.filter((c) => c !== undefined) };
  }
}

/** The `traceparent` for a request under `ctx`: from the registered propagator, else formatted from its span. */
export function outgoingTraceparent(ctx: Context): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent ?? traceparentOf(ctx);
}

function wireError({ APIConnectionError, APIError, APIUserAbortError }: typeof import('openai'), error: unknown, url: string, signal: AbortSignal): unknown {
  if (signal.aborted || error instanceof APIUserAbortError) return error;
  if (error instanceof APIConnectionError) return new ChatCompletionConnectionError(url, error.cause ?? error);
  if (error instanceof APIError) {
    const detail = (error.error as { message?: string } | undefined)?.message ?? error.message;
    if (error.status !== undefined) return new ChatCompletionHttpError(error.status, url, detail);
    return new ChatCompletionStreamError(`the endpoint reported: ${detail}`);
  }
  if (error instanceof SyntaxError) return new ChatCompletionStreamError(`event data is not JSON: ${error.message}`);
  return error;
}

function isRetryable(error: unknown): boolean {
  if (error instanceof ChatCompletionConnectionError) return true;
  if (error instanceof ChatCompletionHttpError) return [408, 409, 429].includes(error.status) || error.status >= 500;
  return false;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
