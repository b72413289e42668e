/** One validation problem from a 422 body, whatever shape the server used. */
export interface ValidationIssue {
  /** Where the problem is, such as `['body', 'text']`. */
  loc: string[];
  message: string;
  type: string;
}

/** Base of every error the client throws; `status` is the HTTP status when one applies, `body` the raw response body. */
export class SpeechClientError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly body: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** 400: bad parameters or an unknown `reference_id`. */
export class BadRequestError extends SpeechClientError {}
/** 401: the API key is missing, invalid or expired. */
export class AuthenticationError extends SpeechClientError {}
/** 402: the account has no credit left. */
export class PaymentRequiredError extends SpeechClientError {}
/** 403: the key may not do this. */
export class PermissionDeniedError extends SpeechClientError {}
/** 404: no such resource. */
export class NotFoundError extends SpeechClientError {}
/** 413: the upload is too large. */
export class PayloadTooLargeError extends SpeechClientError {}

/** 422: the request failed validation; `issues` holds the problems from any of the three body shapes seen. */
export class ValidationError extends SpeechClientError {
  constructor(
    message: string,
    status: number,
    body: unknown,
    readonly issues: ValidationIssue[],
  ) {
    super(message, status, body);
  }
}

/** 429: too many requests; `retryAfterMs` comes from `Retry-After` when the server sent one. */
export class RateLimitError extends SpeechClientError {
  constructor(
    message: string,
    status: number,
    body: unknown,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message, status, body);
  }
}

/** 5xx: the service failed. */
export class ServerError extends SpeechClientError {}
/** Any other non-2xx status. */
export class UnexpectedStatusError extends SpeechClientError {}

/** No response headers (or no next body chunk) within the timeout. */
export class TimeoutError extends SpeechClientError {
  constructor(
    message: string,
    readonly timeoutMs: number,
  ) {
    super(message, undefined, undefined);
  }
}

/** The connection failed or was reset (before or during the response). */
export class ConnectionError extends SpeechClientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, undefined, undefined, options);
  }
}

/** The server answered 2xx with a body the client cannot decode (bad msgpack, JSON or SSE). */
export class MalformedResponseError extends SpeechClientError {}

/** The live TTS socket reported a request-level failure (`error` event or `finish` with reason `error`). */
export class LiveSessionError extends SpeechClientError {}

/** Bad arguments to a client method (caught before anything is sent). */
export class InvalidRequestError extends SpeechClientError {
  constructor(message: string) {
    super(message, undefined, undefined);
  }
}

/** Parses a `Retry-After` value (seconds or HTTP date) into ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function issueFrom(item: unknown): ValidationIssue | null {
  if (!item || typeof item !== 'object') return null;
  const record = item as Record<string, unknown>;
  const message = record.msg ?? record.message;
  if (typeof message !== 'string') return null;
  const loc = Array.isArray(record.loc) ? record.loc.map(String) : typeof record.loc === 'string' ? [record.loc] : [];
  return { loc, message, type: typeof record.type === 'string' ? record.type : 'value_error' };
}

/**
 * Reads the 422 shapes seen in the wild: a top-level array of `{loc, type, msg}`,
 * `{detail: [...]}` (FastAPI) and `{errors: [...]}` / `{detail: "text"}` (pydantic lists and plain details).
 */
export function parseValidationIssues(body: unknown): ValidationIssue[] {
  let list: unknown = body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const record = body as Record<string, unknown>;
    list = record.detail ?? record.errors ?? record.issues;
    if (typeof list === 'string') return [{ loc: [], message: list, type: 'value_error' }];
  }
  if (!Array.isArray(list)) return [];
  return list.map(issueFrom).filter((issue): issue is ValidationIssue => issue !== null);
}

function messageFrom(body: unknown, status: number, fallback: string): string {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const record = body as Record<string, unknown>;
    for (const key of ['message', 'detail', 'error', 'reason']) {
      if (typeof record[key] === 'string' && record[key]) return record[key] as string;
    }
  }
  if (typeof body === 'string' && body.trim()) return body.trim().slice(0, 500);
  return `${fallback} (HTTP ${status})`;
}

/** Builds the typed error for a non-2xx response; `body` is the parsed JSON when it was JSON, else the text. */
export function errorForStatus(status: number, body: unknown, retryAfter: string | null, what: string): SpeechClientError {
  if (status === 422) {
    const issues = parseValidationIssues(body);
    const summary = issues.length
      ? issues.map((issue) => `${issue.loc.join('.') || 'request'}: ${issue.message}`).join('; ')
      : messageFrom(body, status, 'validation failed');
    return new ValidationError(`${what} failed validation: ${summary}`, status, body, issues);
  }
  const message = `${what}: ${messageFrom(body, status, 'request failed')}`;
  switch (status) {
    case 400:
      return new BadRequestError(message, status, body);
    case 401:
      return new AuthenticationError(`${message} — check the API key (FISH_API_KEY / SHOAL_API_KEY)`, status, body);
    case 402:
      return new PaymentRequiredError(`${message} — the account needs credit`, status, body);
    case 403:
      return new PermissionDeniedError(message, status, body);
    case 404:
      return new NotFoundError(message, status, body);
    case 413:
      return new PayloadTooLargeError(message, status, body);
    case 429:
      return new RateLimitError(message, status, body, parseRetryAfter(retryAfter));
    default:
      if (status >= 500) return new ServerError(message, status, body);
      return new UnexpectedStatusError(message, status, body);
  }
}

/** Parses an error body as JSON when possible, else keeps the text. */
export function parseErrorBody(text: string): unknown {
  if (!text) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
