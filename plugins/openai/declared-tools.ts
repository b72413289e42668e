import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import type { ChatTool, ToolContext } from './tools.js';
import { ToolArgumentsError } from './tools.js';

export const toolNamePattern = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A tool declared in a file: what the model is told, and (with `http`) the endpoint that runs it. */
export const toolDeclarationSchema = z.strictObject({
  description: z.string().optional(),
  /** JSON Schema of the arguments; calls are checked against it before the tool runs. */
  parameters: z.record(z.string(), z.unknown()).optional(),
  /** Safe to run before the caller's turn is final (no side effects). Default false. */
  speculative: z.boolean().optional(),
  http: z
    .strictObject({
      url: z.url(),
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
      timeout_ms: z.number().int().min(1).default(5000),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
});
export type ToolDeclaration = z.output<typeof toolDeclarationSchema>;
export const toolDeclarationsSchema = z.record(z.string().regex(toolNamePattern, 'a tool name is letters, digits, "_" or "-"'), toolDeclarationSchema);

/**
 * A `ChatTool` from a declaration. With `http`, a call sends the arguments (as JSON, or as the query of a GET)
 * with the call's `traceparent`, gives up after `timeout_ms`, and the response (JSON, else text) is the result;
 * a status other than 2xx is an error the model reads. Without `http` the call is only surfaced as a `tool-call`.
 */
export function declaredTool(name: string, declaration: ToolDeclaration, fetchImpl: typeof fetch = fetch): ChatTool {
  const validator = declaration.parameters ? argumentsValidator(declaration.parameters) : undefined;
  const { http } = declaration;
  return {
    name,
    ...(declaration.description !== undefined ? { description: declaration.description } : {}),
    ...(declaration.parameters ? { parameters: declaration.parameters } : {}),
    speculative: declaration.speculative ?? false,
    ...(http
      ? {
          run: async (args: Record<string, unknown>, context: ToolContext) => {
            if (validator) {
              const parsed = validator.safeParse(args);
              if (!parsed.success) throw new ToolArgumentsError(name, z.prettifyError(parsed.error));
            }
            return callEndpoint(http, args, context, fetchImpl);
          },
        }
      : {}),
  };
}

async function callEndpoint(http: NonNullable<ToolDeclaration['http']>, args: Record<string, unknown>, context: ToolContext, fetchImpl: typeof fetch): Promise<unknown> {
  const url = new URL(http.url);
  const get = http.method === 'GET';
  if (get) for (const [key, value] of Object.entries(args)) url.searchParams.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  const signal = AbortSignal.any([context.signal, AbortSignal.timeout(http.timeout_ms)]);
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: http.method,
      signal,
      headers: { ...http.headers, ...(get ? {} : { 'content-type': 'application/json' }), ...(context.traceparent ? { traceparent: context.traceparent } : {}) },
      ...(get ? {} : { body: JSON.stringify(args) }),
    });
  } catch (error) {
    if (signal.aborted && !context.signal.aborted) throw new Error(`${http.method} ${http.url} did not answer within ${http.timeout_ms} ms`);
    throw error;
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text is the result
  }
  if (!response.ok) throw new Error(`${http.method} ${http.url} answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  return body;
}

/** A zod validator for a JSON Schema, or undefined when zod cannot read the schema (the arguments then go unchecked). */
function argumentsValidator(schema: Record<string, unknown>): z.ZodType | undefined {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return undefined;
  }
}

/** The tools of a declarations object (`name: {description, parameters, http}`), checked; throws naming the bad field. */
export function declaredTools(value: unknown, source: string, fetchImpl?: typeof fetch): ChatTool[] {
  const parsed = toolDeclarationsSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  - ${i.path.map(String).join('.') || '(top level)'}: ${i.message}`);
    throw new ToolFileError(`invalid tools in ${source}:\n${problems.join('\n')}`);
  }
  return Object.entries(parsed.data).map(([name, declaration]) => declaredTool(name, declaration, fetchImpl));
}

/** Reads a YAML or JSON file of tool declarations (`name: {description, parameters, http: {url, method}}`). */
export function loadToolFile(file: string, fetchImpl?: typeof fetch): ChatTool[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ToolFileError(`cannot read tools file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new ToolFileError(`cannot parse tools file ${file}: ${(error as Error).message.split('\n')[0]}`);
  }
  return declaredTools(value, file, fetchImpl);
}

/** A tools file or declaration is not usable as written. */
export class ToolFileError extends Error {
  override readonly name = 'ToolFileError';
  readonly status = 400;
}
