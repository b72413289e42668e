import type { CallOptions, ResolvedClientOptions } from './defaults.js';
import { ConnectionError, errorForStatus, MalformedResponseError, parseErrorBody, SpeechClientError, TimeoutError } from './errors.js';
import { isRetryableStatus, withRetries, type RetryPlan } from './retry.js';
import { parseRetryAfter } from './errors.js';
import { fetchWire, nodeWire, type Wire, type WireResponse } from './wire.js';

export type QueryValue = string | number | boolean | readonly (string | number)[] | null | undefined;

/** A request body. `replayable: false` marks a one-shot stream: such a request is never retried. */
export interface RequestBody {
  make(): BodyInit;
  contentType?: string;
  replayable: boolean;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  body?: RequestBody;
  /** Names the call in error messages, such as `POST /v1/tts`. */
  what: string;
  call?: CallOptions;
}

/** A 2xx response whose body has not been read yet. */
export interface OpenResponse {
  status: number;
  headers: Headers;
  /** The body as chunks, with the idle timeout applied between chunks; read it once. */
  chunks(): AsyncGenerator<Uint8Array>;
  /** Reads the whole body. */
  bytes(): Promise<Uint8Array>;
  json<T>(): Promise<T>;
  /** Releases the connection without reading the body. */
  discard(): void;
}

function buildUrl(baseUrl: string, path: string, query?: Record<string, QueryValue>): string {
  const url = new URL(baseUrl + path);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, String(item));
    else url.searchParams.set(key, String(value));
  }
  return url.toString();
}

function isAbort(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

class Attempt {
  readonly controller = new AbortController();
  timedOut = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly onUserAbort = () => this.controller.abort(this.userSignal!.reason);

  constructor(
    private readonly timeoutMs: number,
    private readonly userSignal: AbortSignal | undefined,
  ) {
    userSignal?.addEventListener('abort', this.onUserAbort, { once: true });
    this.arm();
  }

  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new TimeoutError(`no response within ${this.timeoutMs} ms`, this.timeoutMs));
    }, this.timeoutMs);
  }

  disarm(): void {
    clearTimeout(this.timer);
  }

  close(): void {
    this.disarm();
    this.userSignal?.removeEventListener('abort', this.onUserAbort);
  }

  /** Turns whatever fetch or the body reader threw into the error the caller should see. */
  translate(error: unknown, what: string, phase: string): unknown {
    if (this.timedOut) return new TimeoutError(`${what}: ${phase} timed out after ${this.timeoutMs} ms`, this.timeoutMs);
    if (isAbort(this.userSignal)) return this.userSignal!.reason;
    if (error instanceof Error && error.name === 'AbortError') return error;
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const detail = cause instanceof Error ? cause.message : String(cause);
    return new ConnectionError(`${what}: connection failed ${phase} (${detail})`, { cause: error });
  }
}

/** Sends requests with auth, retries (408/429/5xx and connection failures, backoff with jitter, `Retry-After`) and timeouts. */
export class HttpTransport {
  private readonly wire: Wire;

  constructor(readonly options: ResolvedClientOptions) {
    this.wire = options.fetch ? fetchWire(options.fetch) : nodeWire(options.agent);
  }

  baseHeaders(extra?: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { ...this.options.headers };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    return { ...headers, ...extra };
  }

  async send(request: HttpRequest): Promise<OpenResponse> {
    const call = request.call ?? {};
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs;
    const maxRetries = request.body && !request.body.replayable ? 0 : (call.maxRetries ?? this.options.maxRetries);
    const url = buildUrl(this.options.baseUrl, request.path, request.query);
    const headers = this.baseHeaders({ ...request.headers, ...call.headers });
    if (request.body?.contentType) headers['content-type'] = request.body.contentType;

    const retryAfter = new WeakMap<object, number | undefined>();
    const plan = {
      ...this.retryPlan(maxRetries, call.signal),
      retryable: (error: unknown) => error instanceof ConnectionError || (error instanceof SpeechClientError && error.status !== undefined && isRetryableStatus(error.status)),
      retryAfterMs: (error: unknown) => (typeof error === 'object' && error ? retryAfter.get(error) : undefined),
    };
    return withRetries(async () => {
      if (isAbort(call.signal)) throw call.signal!.reason;
      const attempt = new Attempt(timeoutMs, call.signal);
      let response: WireResponse;
      try {
        response = await this.wire(url, { method: request.method, headers, body: request.body?.make(), signal: attempt.controller.signal });
      } catch (error) {
        attempt.close();
        throw attempt.translate(error, request.what, 'before the response');
      }
      if (response.status >= 200 && response.status < 300) return openResponse(response, attempt, request.what);

      let text = '';
      try {
        const parts: Uint8Array[] = [];
        for await (const part of response.body) parts.push(part);
        text = Buffer.concat(parts).toString('utf8');
      } catch (error) {
        attempt.close();
        throw attempt.translate(error, request.what, 'while reading the error body');
      }
      attempt.close();
      const header = response.headers.get('retry-after');
      const failure = errorForStatus(response.status, parseErrorBody(text), header, request.what);
      retryAfter.set(failure, parseRetryAfter(header));
      throw failure;
    }, plan);
  }

  /** The retry plan of a call: `maxRetries` more attempts with this client's backoff, stopped by `signal`. */
  retryPlan(maxRetries: number, signal?: AbortSignal): Omit<RetryPlan, 'retryable'> {
    return { retries: maxRetries, baseMs: this.options.retryBaseDelayMs, maxMs: this.options.retryMaxDelayMs, signal };
  }

  /** Sends and parses JSON; a GET whose body is cut off mid-way is retried like a failed connection. */
  async json<T>(request: HttpRequest): Promise<T> {
    const maxRetries = request.method === 'GET' ? (request.call?.maxRetries ?? this.options.maxRetries) : 0;
    return withRetries(async () => (await this.send(request)).json<T>(), {
      ...this.retryPlan(maxRetries, request.call?.signal),
      retryable: (error) => error instanceof ConnectionError,
    });
  }
}

function openResponse(response: WireResponse, attempt: Attempt, what: string): OpenResponse {
  let used = false;
  const take = () => {
    if (used) throw new Error(`${what}: the response body was already read`);
    used = true;
  };
  async function* chunks(): AsyncGenerator<Uint8Array> {
    take();
    const iterator = response.body[Symbol.asyncIterator]();
    let done = false;
    try {
      attempt.arm();
      for (;;) {
        let result: IteratorResult<Uint8Array>;
        try {
          result = await iterator.next();
        } catch (error) {
          throw attempt.translate(error, what, 'mid-response');
        }
        if (result.done) {
          done = true;
          return;
        }
        attempt.disarm();
        if (result.value.byteLength > 0) yield result.value;
        attempt.arm();
      }
    } finally {
      attempt.close();
      if (!done) response.cancel();
    }
  }
  async function bytes(): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for await (const chunk of chunks()) parts.push(chunk);
    return Buffer.concat(parts);
  }
  return {
    status: response.status,
    headers: response.headers,
    chunks,
    bytes,
    async json<T>(): Promise<T> {
      const body = await bytes();
      const text = new TextDecoder().decode(body);
      if (!text.trim()) return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch (error) {
        throw new MalformedResponseError(`${what}: the response is not valid JSON`, response.status, text, { cause: error });
      }
    },
    discard() {
      take();
      attempt.close();
      response.cancel();
    },
  };
}
