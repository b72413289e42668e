/** The endpoint answered with an error status; `status` is that HTTP status. */
export class ChatCompletionHttpError extends Error {
  constructor(readonly status: number, readonly url: string, detail: string) {
    super(`chat completion request to ${url} failed with HTTP ${status}: ${detail}`);
    this.name = 'ChatCompletionHttpError';
  }
}

/** The endpoint could not be reached (DNS, refused connection, timeout). */
export class ChatCompletionConnectionError extends Error {
  readonly status = 502;
  constructor(readonly url: string, cause: unknown) {
    super(`cannot reach the chat completion endpoint ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ChatCompletionConnectionError';
  }
}

/** The stream did not have the OpenAI chat-completions shape. */
export class ChatCompletionStreamError extends Error {
  readonly status = 502;
  constructor(message: string) {
    super(`malformed chat completion stream: ${message}`);
    this.name = 'ChatCompletionStreamError';
  }
}
