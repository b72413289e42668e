import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { countRefusal } from '../../metrics/index.js';
import type { z } from 'zod';
import { ServiceError } from '../accounts.js';
import { EngineUnavailableError } from '../../engines/types.js';
import { EngineBusyError } from '../../engines/pool/index.js';

/** One entry of a 422 body, in the interface description's shape. */
export interface ValidationIssue {
  loc: string[];
  type: string;
  msg: string;
  ctx?: string;
  in?: 'path' | 'query' | 'header' | 'cookie' | 'body';
}

/** A request that failed schema validation: answered 422 with an array of issues. */
export class RequestValidationError extends Error {
  readonly status = 422;
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
    this.name = 'RequestValidationError';
  }
}

const typeNames: Record<string, string> = {
  int: 'int_type',
  number: 'float_type',
  string: 'string_type',
  boolean: 'bool_type',
  array: 'list_type',
  object: 'model_type',
};

function issueType(issue: z.core.$ZodIssue): { type: string; ctx?: Record<string, unknown> } {
  switch (issue.code) {
    case 'too_big':
      if (issue.origin === 'string') return { type: 'string_too_long', ctx: { max_length: issue.maximum } };
      if (issue.origin === 'array') return { type: 'too_long', ctx: { max_length: issue.maximum } };
      return issue.inclusive ? { type: 'less_than_equal', ctx: { le: issue.maximum } } : { type: 'less_than', ctx: { lt: issue.maximum } };
    case 'too_small':
      if (issue.origin === 'string') return { type: 'string_too_short', ctx: { min_length: issue.minimum } };
      if (issue.origin === 'array') return { type: 'too_short', ctx: { min_length: issue.minimum } };
      return issue.inclusive
        ? { type: 'greater_than_equal', ctx: { ge: issue.minimum } }
        : { type: 'greater_than', ctx: { gt: issue.minimum } };
    case 'invalid_type':
      return { type: typeNames[issue.expected] ?? `${issue.expected}_type` };
    case 'invalid_value':
      return { type: 'literal_error', ctx: { expected: issue.values } };
    case 'invalid_union':
      return { type: 'union_error' };
    case 'unrecognized_keys':
      return { type: 'extra_forbidden' };
    default:
      return { type: 'value_error' };
  }
}

/** For a union, the failing branch that got furthest into the value says most about what to fix. */
function closestBranch(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  let best: z.core.$ZodIssue | undefined;
  for (const branch of issue.errors) {
    for (const inner of branch) if (!best || inner.path.length > best.path.length) best = inner;
  }
  if (!best || best.path.length === 0) return issue;
  return closestBranch({ ...best, path: [...issue.path, ...best.path] } as z.core.$ZodIssue);
}

/** Turns zod issues into the 422 array; `where` is the request part the schema checked. */
export function toValidationIssues(error: z.ZodError, where: ValidationIssue['in'] = 'body'): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const issue of error.issues.map(closestBranch)) {
    const loc = [where ?? 'body', ...issue.path.map(String)];
    const { type, ctx } = issueType(issue);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({ loc: [...loc, key], type, msg: `unknown field ${key}; remove it`, in: where });
      }
      continue;
    }
    const entry: ValidationIssue = { loc, type, msg: issue.message, in: where };
    if (ctx) entry.ctx = JSON.stringify(ctx);
    issues.push(entry);
  }
  return issues;
}

/** Parses with a zod schema, throwing RequestValidationError (422) on failure. */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, where: ValidationIssue['in'] = 'body'): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new RequestValidationError(toValidationIssues(result.error, where));
  return result.data;
}

const frameworkMessages: Record<string, (error: FastifyError) => string> = {
  FST_ERR_BAD_URL: () => 'the request path has bad percent-encoding; encode reserved characters as %XX',
  FST_ERR_MAX_PARAM_LENGTH: () => 'a path segment is too long (at most 100 characters); check the id in the URL',
  FST_ERR_CTP_BODY_TOO_LARGE: () => 'request body is too large for this endpoint; send a smaller body',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (error) => `${error.message}; see the endpoint's accepted content types`,
  FST_ERR_CTP_EMPTY_JSON_BODY: () => 'request body is empty; send a JSON object',
  FST_ERR_CTP_INVALID_JSON_BODY: (error) => `request body is not valid JSON: ${error.message}`,
  FST_INVALID_MULTIPART_CONTENT_TYPE: () => 'request is not multipart/form-data',
  FST_REQ_FILE_TOO_LARGE: () => 'uploaded file is too large',
};

/** Codes of a full disk (file writes) or a full database (SQLite). */
const storageFullCodes = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

export function isStorageFull(error: unknown): boolean {
  return storageFullCodes.has(String((error as { code?: unknown } | null)?.code));
}

/** The HTTP status an error stands for: its own status when it carries one (4xx/5xx), else 500. */
export function statusOf(error: unknown): number {
  if (error instanceof RequestValidationError) return 422;
  if (error instanceof ServiceError) return error.status;
  if (error instanceof EngineUnavailableError) return 503;
  if (isStorageFull(error)) return 507;
  const { statusCode, status } = (error ?? {}) as { statusCode?: unknown; status?: unknown };
  for (const value of [statusCode, status]) if (typeof value === 'number' && value >= 400 && value < 600) return value;
  return 500;
}

/** What an error answers, whatever the body's shape: status, message, and `retryAfterMs` when an engine queue is full. Sets `Retry-After` and logs server faults. */
export function describeError(error: unknown, request: FastifyRequest, reply: FastifyReply): { status: number; message: string; retryAfterMs?: number } {
  if (error instanceof ServiceError) {
    if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.ceil(error.retryAfterSeconds)));
    return { status: error.status, message: error.message };
  }
  if (error instanceof EngineUnavailableError) return { status: 503, message: error.message };
  if (error instanceof EngineBusyError) {
    reply.header('retry-after', String(Math.ceil(error.retryAfterMs / 1000)));
    return { status: 503, message: error.message, retryAfterMs: error.retryAfterMs };
  }
  if (isStorageFull(error)) {
    request.log.error({ err: error }, 'storage is full');
    return { status: 507, message: "the server's storage is full and nothing was saved; retry later (the operator must free disk space)" };
  }
  const fastifyError = error as Partial<FastifyError>;
  const status = statusOf(error);
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed');
    return { status, message: 'internal error; the server log has the details' };
  }
  const describe = fastifyError.code ? frameworkMessages[fastifyError.code] : undefined;
  return { status, message: describe ? describe(fastifyError as FastifyError) : (fastifyError.message ?? 'bad request') };
}

/** The one error handler of the service: every failure becomes `{status, message}` (or the 422 array). */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  countRefusal(error instanceof RequestValidationError ? 422 : statusOf(error));
  if (error instanceof RequestValidationError) {
    return reply.code(422).send(error.issues);
  }
  const { status, message, retryAfterMs } = describeError(error, request, reply);
  return reply.code(status).send({ status, message, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
}
