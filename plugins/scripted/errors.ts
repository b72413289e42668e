export type ScriptPath = ReadonlyArray<string | number>;

export interface ScriptIssue {
  /** Where the bad field is, e.g. `states.confirm.on[1].goto`. */
  path: string;
  message: string;
  /** 1-based line in the source file, when known. */
  line?: number;
}

/** Formats a field path the way a person would write it: `states.confirm.on[1].goto`. */
export function formatPath(path: ScriptPath): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out || '(top level)';
}

/**
 * The script parsed but does not describe a valid dialogue; `issues` names each bad field, in line order (those
 * without a line first). The message has one line per issue, `FILE:LINE: path: problem`, as compilers write them.
 */
export class ScriptValidationError extends Error {
  readonly status = 400;
  readonly issues: readonly ScriptIssue[];
  constructor(readonly source: string, issues: readonly ScriptIssue[]) {
    const ordered = [...issues].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    super(ordered.map((i) => `${source}${i.line ? `:${i.line}` : ''}: ${i.path}: ${i.message}`).join('\n'));
    this.issues = ordered;
    this.name = 'ScriptValidationError';
  }
}

/** The file is not well-formed JSON or YAML. */
export class ScriptSyntaxError extends Error {
  readonly status = 400;
  constructor(readonly source: string, detail: string, readonly line?: number) {
    super(`cannot parse dialogue script ${source}${line ? ` at line ${line}` : ''}: ${detail}`);
    this.name = 'ScriptSyntaxError';
  }
}

/** The script file could not be read. */
export class ScriptReadError extends Error {
  readonly status = 404;
  constructor(readonly source: string, cause: unknown) {
    super(`cannot read dialogue script ${source}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ScriptReadError';
  }
}

/** A valid script went round in circles at run time (states passing control on without waiting for the caller). */
export class ScriptLoopError extends Error {
  constructor(readonly states: readonly string[]) {
    super(`dialogue script loops without waiting for the caller: ${states.join(' -> ')}`);
    this.name = 'ScriptLoopError';
  }
}
