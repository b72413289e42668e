import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { isMap, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { isPipecatEval, pipecatEvalSchema, scenarioFromPipecat } from './pipecat.js';
import { scenarioDefaults, type Scenario } from './scenario.js';
import { scenarioFileSchema, type ScenarioFile, type ScenarioSpec } from './schema.js';

/** A scenario file that cannot be used: where (file, line, key) and what is wrong. */
export class ScenarioFileError extends Error {
  override readonly name = 'ScenarioFileError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly key: string | undefined,
    readonly problem: string,
  ) {
    super(`${file}${line !== undefined ? `:${line}` : ''}: ${key ? `${key}: ` : ''}${problem}`);
  }
}

const scenarioExtensions = new Set(['.yaml', '.yml', '.json']);

/**
 * Reads scenario files (YAML or JSON, Shoal's format or Pipecat Evals' scripted format) and directories of them
 * (every .yaml/.yml/.json file below with top-level `scenarios` or `turns`; other files, e.g. scripts, are skipped).
 * Throws a ScenarioFileError naming the file, line and key of the first problem.
 */
export async function loadScenarios(paths: string | readonly string[]): Promise<Scenario[]> {
  const scenarios: Scenario[] = [];
  for (const path of typeof paths === 'string' ? [paths] : paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new ScenarioFileError(path, undefined, undefined, 'no such file or directory');
    if (info.isDirectory()) {
      for (const file of await scenarioFilesIn(path)) {
        const text = await readFile(file, 'utf8');
        if (looksLikeScenarios(text)) scenarios.push(...parseScenarios(text, file));
      }
    } else scenarios.push(...parseScenarios(await readFile(path, 'utf8'), path));
  }
  return scenarios;
}

async function scenarioFilesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) files.push(...(await scenarioFilesIn(path)));
    else if (entry.isFile() && scenarioExtensions.has(extname(entry.name))) files.push(path);
  }
  return files;
}

function looksLikeScenarios(text: string): boolean {
  try {
    const value = parseDocument(text).toJS() as unknown;
    return typeof value === 'object' && value !== null && ('scenarios' in value || 'turns' in value);
  } catch {
    return false;
  }
}

/** Parses the text of one scenario file (`file` names it in errors and anchors its relative paths). */
export function parseScenarios(text: string, file: string): Scenario[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax) throw new ScenarioFileError(file, lines.linePos(syntax.pos[0]).line, undefined, syntax.message.split('\n')[0]!);
  if (!isMap(doc.contents)) throw new ScenarioFileError(file, 1, undefined, 'expected a mapping with `scenarios:` (or Pipecat Evals\' `turns:`)');
  const value = doc.toJS() as Record<string, unknown>;
  const dir = dirname(resolve(file));
  if (isPipecatEval(value)) {
    const parsed = pipecatEvalSchema.safeParse(value);
    if (!parsed.success) throw schemaError(parsed.error, doc, lines, file);
    return [scenarioFromPipecat(parsed.data, file, dir)];
  }
  const parsed = scenarioFileSchema.safeParse(value);
  if (!parsed.success) throw schemaError(parsed.error, doc, lines, file);
  return parsed.data.scenarios.map((spec) => resolveScenario(parsed.data, spec, file, dir));
}

function resolveScenario(settings: ScenarioFile, spec: ScenarioSpec, file: string | undefined, dir: string): Scenario {
  const own = spec.agent !== undefined || spec.script !== undefined || spec.llm !== undefined;
  const source = own ? spec : settings;
  return {
    name: spec.name,
    ...(file !== undefined ? { file } : {}),
    dir,
    ...(source.agent !== undefined ? { agent: source.agent } : {}),
    ...(source.script !== undefined ? { script: source.script } : {}),
    ...(source.llm !== undefined ? { llm: source.llm } : {}),
    mode: spec.mode ?? settings.mode ?? scenarioDefaults.mode,
    line: spec.line ?? settings.line ?? scenarioDefaults.line,
    conditions: { ...settings.conditions, ...spec.conditions },
    caller: {
      voice: spec.caller?.voice ?? settings.caller?.voice ?? scenarioDefaults.voice,
      gapMs: spec.caller?.gap_ms ?? settings.caller?.gap_ms ?? scenarioDefaults.gapMs,
    },
    replyTimeoutMs: spec.reply_timeout_ms ?? settings.reply_timeout_ms ?? scenarioDefaults.replyTimeoutMs,
    steps: spec.steps,
    expect: spec.expect ?? {},
  };
}

/** A scenario written in code, checked as a file's would be (relative paths resolve from `dir`, default the working directory). */
export function defineScenario(spec: ScenarioSpec & Partial<Omit<ScenarioFile, 'scenarios'>>, dir = process.cwd()): Scenario {
  const parsed = scenarioFileSchema.safeParse({ scenarios: [spec] });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ScenarioFileError(spec.name ?? '(scenario)', undefined, keyOf(issue.path.slice(2)), issue.message);
  }
  return resolveScenario({ scenarios: [] }, parsed.data.scenarios[0]!, undefined, dir);
}

function keyOf(path: readonly PropertyKey[]): string | undefined {
  if (path.length === 0) return undefined;
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index > 0 ? '.' : ''}${String(part)}`)).join('');
}

function schemaError(error: z.ZodError, doc: Document, lines: LineCounter, file: string): ScenarioFileError {
  const issue = error.issues[0]!;
  let path = [...issue.path];
  let problem = issue.message;
  if (issue.code === 'unrecognized_keys') {
    path = [...path, issue.keys[0]!];
    problem = `unknown key (${issue.keys.length > 1 ? `also ${issue.keys.slice(1).join(', ')}; ` : ''}see schemas/scenario.schema.json)`;
  }
  return new ScenarioFileError(file, lineOf(doc, lines, path), keyOf(path), problem);
}

/** The 1-based line of the node at `path`, or of its nearest ancestor present in the document. */
function lineOf(doc: Document, lines: LineCounter, path: PropertyKey[]): number | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth) as (string | number)[], true) as { range?: [number, number, number] } | undefined;
    const range = depth === 0 ? doc.contents?.range : node?.range;
    if (range) return lines.linePos(range[0]).line;
  }
  return undefined;
}
