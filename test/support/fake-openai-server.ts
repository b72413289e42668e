/**
 * A local stand-in for an OpenAI-compatible chat-completions endpoint (`POST /v1/chat/completions`, streamed as
 * `chat.completion.chunk` server-sent events ending in `data: [DONE]`, as in OpenAI's API reference): each
 * request is answered by the next scripted handler, or by `fallback` when none is queued.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: { model?: string; messages?: Array<Record<string, unknown>>; tools?: unknown[] } & Record<string, unknown>;
  /** Resolves true when the client closed the connection before the response finished. */
  closedEarly: Promise<boolean>;
}
export type Handler = (res: ServerResponse, request: SeenRequest) => void | Promise<void>;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const chunk = (delta: Record<string, unknown>) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;

export const startStream = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });

/** Streams `text` word by word (`gapMs` apart), then `[DONE]`. */
export function says(text: string, gapMs = 0): Handler {
  return async (res) => {
    startStream(res);
    const words = text.split(/(?<= )/);
    for (const word of words) {
      res.write(chunk({ role: 'assistant', content: word }));
      if (gapMs) await sleep(gapMs);
    }
    res.end('data: [DONE]\n\n');
  };
}

/** Streams optional text, then one tool call per entry (arguments as JSON), then `[DONE]`. */
export function callsTools(calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>, text = ''): Handler {
  return (res) => {
    startStream(res);
    if (text) res.write(chunk({ role: 'assistant', content: text }));
    calls.forEach((call, index) => {
      res.write(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      res.write(chunk({ tool_calls: [{ index, function: { arguments: JSON.stringify(call.arguments) } }] }));
    });
    res.end('data: [DONE]\n\n');
  };
}

/** Answers with an OpenAI-shaped error body and `status`. */
export function fails(status: number, message = 'failure', headers: Record<string, string> = {}): Handler {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ error: { message, type: 'server_error' } }));
  };
}

export class FakeOpenAiServer {
  readonly handlers: Handler[] = [];
  readonly seen: SeenRequest[] = [];
  fallback: Handler | undefined;
  private server: Server | undefined;
  private port = 0;

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (part: Buffer) => (raw += part.toString()));
      req.on('end', () => {
        const closedEarly = new Promise<boolean>((resolve) => res.on('close', () => resolve(!res.writableFinished)));
        const request: SeenRequest = { path: req.url ?? '', headers: req.headers, body: raw ? (JSON.parse(raw) as SeenRequest['body']) : {}, closedEarly };
        this.seen.push(request);
        const handler = this.handlers.shift() ?? this.fallback;
        if (!handler) {
          fails(500, 'no scripted answer left')(res, request);
          return;
        }
        void handler(res, request);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  reset(): void {
    this.handlers.length = 0;
    this.seen.length = 0;
    this.fallback = undefined;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/**
 * A caller model for simulated callers: ends the conversation (the `end_conversation` tool, outcome
 * goal_reached) once what it heard matches `reached`, else says its next line (the last one again when out of
 * lines). Set as `fallback`, it answers every turn of every call.
 */
export function callerModel(lines: readonly string[], reached: RegExp): Handler {
  return (res, request) => {
    const messages = request.body.messages ?? [];
    const heard = String(messages.findLast((message) => message['role'] === 'user')?.['content'] ?? '');
    if (reached.test(heard)) return callsTools([{ id: 'call_end', name: 'end_conversation', arguments: { outcome: 'goal_reached', reason: `heard "${heard}"` } }])(res, request);
    const spoken = messages.filter((message) => message['role'] === 'assistant').length;
    return says(lines[Math.min(spoken, lines.length - 1)]!)(res, request);
  };
}
