import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { scriptSchema, type DialogueScript } from './script-schema.js';
import type { z } from 'zod';
import { findReferenceProblems, type ReferenceProblem } from './script-references.js';
import { formatPath, ScriptReadError, ScriptSyntaxError, ScriptValidationError, type ScriptIssue, type ScriptPath } from './errors.js';

type LineOf = (path: ScriptPath) => number | undefined;

/** What a file is checked against: its schema and the checks of the names it refers to. */
export interface ScriptFormat<Parsed> {
  schema: z.ZodType<Parsed>;
  references(parsed: Parsed): ReferenceProblem[];
}
const dialogueScript: ScriptFormat<DialogueScript> = { schema: scriptSchema, references: findReferenceProblems };

/** Checks a parsed script object; throws `ScriptValidationError` listing every bad field by path. */
export function validateScript(value: unknown, source?: string, lineOf?: LineOf): DialogueScript;
export function validateScript<Parsed>(value: unknown, source: string, lineOf: LineOf | undefined, format: ScriptFormat<Parsed>): Parsed;
export function validateScript(value: unknown, source = 'script', lineOf: LineOf = () => undefined, format: ScriptFormat<unknown> = dialogueScript): unknown {
  const parsed = format.schema.safeParse(value);
  const issue = (path: ScriptPath, message: string): ScriptIssue => {
    const line = lineOf(path);
    return line === undefined ? { path: formatPath(path), message } : { path: formatPath(path), message, line };
  };
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => {
      const path = i.path.filter((k): k is string | number => typeof k !== 'symbol');
      if (i.code === 'unrecognized_keys') {
        return issue(path, `unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')}`);
      }
      if (i.code === 'invalid_type' && /received undefined/.test(i.message)) return issue(path, `required field is missing (expected ${i.expected})`);
      return issue(path, i.message);
    });
    throw new ScriptValidationError(source, issues);
  }
  const problems = format.references(parsed.data);
  if (problems.length > 0) throw new ScriptValidationError(source, problems.map((p) => issue(p.path, p.message)));
  return parsed.data;
}

/** Line of the deepest existing node on `path` in a YAML document. */
function yamlLineFinder(doc: Document, lines: LineCounter): LineOf {
  return (path) => {
    let node: unknown = doc.contents;
    let found = node;
    for (const key of path) {
      if (isMap(node)) node = node.get(key, true);
      else if (isSeq(node) && typeof key === 'number') node = node.get(key, true);
      else break;
      if (node === undefined) break;
      found = node;
    }
    const range = (found as { range?: [number, number, number] } | undefined)?.range;
    return range ? lines.linePos(range[0]).line : undefined;
  };
}

/** Parses script text: JSON when `format` is json (or the text starts with `{`), else YAML. */
export function parseScript(text: string, source?: string, format?: 'json' | 'yaml'): DialogueScript;
export function parseScript<Parsed>(text: string, source: string, format: 'json' | 'yaml' | undefined, kind: ScriptFormat<Parsed>): Parsed;
export function parseScript(text: string, source = 'script', format?: 'json' | 'yaml', kind: ScriptFormat<unknown> = dialogueScript): unknown {
  const asJson = format === 'json' || (format === undefined && text.trimStart().startsWith('{'));
  if (asJson) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ScriptSyntaxError(source, (error as Error).message);
    }
    return validateScript(value, source, undefined, kind);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const [firstError] = doc.errors;
  if (firstError) {
    const line = firstError.linePos?.[0]?.line;
    throw new ScriptSyntaxError(source, firstError.message.split('\n')[0] ?? firstError.message, line);
  }
  // Scalars keep their plain JS values; anything non-JSON (dates, binary) is left for the schema to reject.
  const value: unknown = isScalar(doc.contents) ? doc.contents.value : doc.toJS({ maxAliasCount: 100 });
  return validateScript(value, source, yamlLineFinder(doc, lines), kind);
}

/** Reads and validates a `.json`, `.yaml` or `.yml` script file. */
export function loadScript(file: string): DialogueScript;
export function loadScript<Parsed>(file: string, kind: ScriptFormat<Parsed>): Parsed;
export function loadScript(file: string, kind: ScriptFormat<unknown> = dialogueScript): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ScriptReadError(file, error);
  }
  const extension = extname(file).toLowerCase();
  const format = extension === '.json' ? 'json' : extension === '.yaml' || extension === '.yml' ? 'yaml' : undefined;
  return parseScript(text, file, format, kind);
}
