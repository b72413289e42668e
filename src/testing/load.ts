import { access, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { isMap, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { isPipecatEval, pipecatEvalSchema, scenarioFromPipecat } from './pipecat.js';
import { scenarioDefaults, type Scenario } from './scenario.js';
import { scenarioFileSchema, type Caller, type ScenarioFile, type ScenarioSpec } from './schema.js';

/** One thing wrong in a scenario file: where (file, line, key) and what. */
export interface FileProblem {
  file: string;
  line?: number | undefined;
  key?: string | undefined;
  problem: string;
}

const problemText = ({ file, line, key, problem }: FileProblem) => `${file}${line !== undefined ? `:${line}` : ''}: ${key ? `${key}: ` : ''}${problem}`;

/**
 * Scenario files that cannot be used: every problem found, one `FILE:LINE: key: problem` line each, by file and
 * line. `file`, `line`, `key` and `problem` are the first one's.
 */
export class ScenarioFileError extends Error {
  override readonly name = 'ScenarioFileError';
  readonly problems: FileProblem[];
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly key: string | undefined,
    readonly problem: string,
    more: readonly FileProblem[] = [],
  ) {
    const problems = [{ file, line, key, problem }, ...more];
    super(problems.map(problemText).join('\n'));
    this.problems = problems;
  }

  /** The problems in file order, then line order (a problem without a line first). */
  static of(problems: readonly FileProblem[]): ScenarioFileError {
    const files = [...new Set(problems.map((entry) => entry.file))];
    const sorted = [...problems].sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file) || (a.line ?? 0) - (b.line ?? 0));
    const [first, ...rest] = sorted;
    return new ScenarioFileError(first!.file, first!.line, first!.key, first!.problem, rest);
  }
}

const scenarioExtensions = new Set(['.yaml', '.yml', '.json']);

/**
 * Reads scenario files (YAML or JSON, Shoal's format or Pipecat Evals' scripted format) and directories of them
 * (every .yaml/.yml/.json file below with top-level `scenarios` or `turns`; other files, e.g. scripts, are skipped).
 * The files a scenario reads (`play:` recordings, `llm.instructions`) must exist. Throws a ScenarioFileError
 * naming the file, line and key of every problem, before anything runs.
 */
export async function loadScenarios(paths: string | readonly string[]): Promise<Scenario[]> {
  const scenarios: Scenario[] = [];
  const problems: FileProblem[] = [];
  const load = async (text: string, file: string) => {
    const read = readScenarioText(text, file);
    problems.push(...read.problems, ...(read.problems.length ? [] : await missingFiles(read)));
    scenarios.push(...read.scenarios);
  };
  for (const path of typeof paths === 'string' ? [paths] : paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) problems.push({ file: path, problem: 'no such file or directory' });
    else if (info.isDirectory()) {
      for (const file of await scenarioFilesIn(path)) {
        const text = await readFile(file, 'utf8');
        if (looksLikeScenarios(text)) await load(text, file);
      }
    } else await load(await readFile(path, 'utf8'), path);
  }
  if (problems.length) throw ScenarioFileError.of(problems);
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
  const read = readScenarioText(text, file);
  if (read.problems.length) throw ScenarioFileError.of(read.problems);
  return read.scenarios;
}

/** A file's scenarios, or what is wrong in it; `lineAt` finds the line of a key path. */
interface ReadFile {
  file: string;
  dir: string;
  scenarios: Scenario[];
  spec?: ScenarioFile;
  problems: FileProblem[];
  lineAt: (path: PropertyKey[]) => number | undefined;
}

function readScenarioText(text: string, file: string): ReadFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const dir = dirname(resolve(file));
  const lineAt = (path: PropertyKey[]) => lineOf(doc, lines, path);
  const failed = (problems: FileProblem[]): ReadFile => ({ file, dir, scenarios: [], problems, lineAt });
  if (doc.errors.length) return failed(doc.errors.map((error) => ({ file, line: lines.linePos(error.pos[0]).line, problem: error.message.split('\n')[0]! })));
  if (!isMap(doc.contents)) return failed([{ file, line: 1, problem: 'expected a mapping with `scenarios:` (or Pipecat Evals\' `turns:`)' }]);
  const value = doc.toJS() as Record<string, unknown>;
  if (isPipecatEval(value)) {
    const parsed = pipecatEvalSchema.safeParse(value);
    if (!parsed.success) return failed(schemaProblems(parsed.error, lineAt, file));
    return { file, dir, scenarios: [scenarioFromPipecat(parsed.data, file, dir)], problems: [], lineAt };
  }
  const parsed = scenarioFileSchema.safeParse(value);
  if (!parsed.success) return failed(schemaProblems(parsed.error, lineAt, file));
  const scenarios = parsed.data.scenarios.map((spec, index) => ({
    ...resolveScenario(parsed.data, spec, file, dir),
    lines: { scenario: lineAt(['scenarios', index]), steps: (spec.steps ?? []).map((_, step) => lineAt(['scenarios', index, 'steps', step])) },
  }));
  return { file, dir, scenarios, spec: parsed.data, problems: [], lineAt };
}

/** The `play:` recordings and `llm.instructions` files of a parsed file that cannot be read. */
async function missingFiles(read: ReadFile): Promise<FileProblem[]> {
  const wanted: Array<{ path: PropertyKey[]; target: string; scenario?: string }> = [];
  if (read.spec?.llm?.instructions) wanted.push({ path: ['llm', 'instructions'], target: read.spec.llm.instructions });
  read.spec?.scenarios.forEach((scenario, index) => {
    if (scenario.llm?.instructions) wanted.push({ path: ['scenarios', index, 'llm', 'instructions'], target: scenario.llm.instructions, scenario: scenario.name });
    scenario.steps?.forEach((step, stepIndex) => {
      if (step.play !== undefined) wanted.push({ path: ['scenarios', index, 'steps', stepIndex, 'play'], target: step.play, scenario: scenario.name });
    });
  });
  const problems: FileProblem[] = [];
  for (const { path, target, scenario } of wanted) {
    const full = resolve(read.dir, target);
    const code = await access(full).then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error.code ?? String(error),
    );
    if (code === undefined) continue;
    const what = code === 'ENOENT' ? 'no such file' : `cannot read it (${code})`;
    problems.push({ file: read.file, line: read.lineAt(path), key: keyOf(path), problem: `${what}: ${full}${scenario !== undefined ? ` (scenario "${scenario}")` : ''}` });
  }
  return problems;
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
    caller: callerOf({ ...settings.caller, ...spec.caller }),
    replyTimeoutMs: spec.reply_timeout_ms ?? settings.reply_timeout_ms ?? scenarioDefaults.replyTimeoutMs,
    steps: spec.steps ?? [],
    expect: spec.expect ?? {},
  };
}

function callerOf(caller: Caller): Scenario['caller'] {
  const { goal, llm, persona } = caller;
  return {
    voice: caller.voice ?? scenarioDefaults.voice,
    gapMs: caller.gap_ms ?? scenarioDefaults.gapMs,
    ...(goal !== undefined && llm !== undefined ? { simulated: { goal, llm, ...(persona !== undefined ? { persona } : {}), maxTurns: caller.max_turns ?? scenarioDefaults.maxTurns } } : {}),
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

function schemaProblems(error: z.ZodError, lineAt: (path: PropertyKey[]) => number | undefined, file: string): FileProblem[] {
  return error.issues.flatMap((issue): FileProblem[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const path = [...issue.path, key];
        return { file, line: lineAt(path), key: keyOf(path), problem: 'unknown key (see schemas/scenario.schema.json)' };
      });
    }
    return [{ file, line: lineAt([...issue.path]), key: keyOf(issue.path), problem: issue.message }];
  });
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
