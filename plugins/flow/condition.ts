/**
 * A small, safe condition language for `on_tool.when` (no `eval`): paths into the tool call (`result.ok`,
 * `args.rx`, `slots.dob`, `result.items[0].name`), literals (strings in quotes, numbers, true, false, null),
 * `== != < <= > >=`, `! && ||` and parentheses. A path that does not exist is `undefined` (falsy).
 */
export type Condition = (scope: Readonly<Record<string, unknown>>) => boolean;

type Value = (scope: Readonly<Record<string, unknown>>) => unknown;

/** The condition can not be read; the message says where. */
export class ConditionSyntaxError extends Error {
  override readonly name = 'ConditionSyntaxError';
}

const token = /\s*(?:(\d+(?:\.\d+)?)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|([A-Za-z_][A-Za-z0-9_]*)|(==|!=|<=|>=|&&|\|\||[()<>!.[\]]))/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  token.lastIndex = 0;
  while (token.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(token.lastIndex))) break;
    const at = token.lastIndex;
    const match = token.exec(text);
    if (!match) throw new ConditionSyntaxError(`cannot read "${text.slice(at).trim()}" in condition "${text}"`);
    tokens.push(match[0].trim());
  }
  return tokens;
}

export function parseCondition(text: string): Condition {
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string): string => {
    const next = tokens[at];
    if (next === undefined || (expected !== undefined && next !== expected)) {
      throw new ConditionSyntaxError(`expected ${expected ? `"${expected}"` : 'more'} ${next === undefined ? 'at the end' : `before "${next}"`} of condition "${text}"`);
    }
    at++;
    return next;
  };
  const or = (): Value => {
    let left = and();
    while (peek() === '||') {
      take();
      const [a, b] = [left, and()];
      left = (s) => truthy(a(s)) || truthy(b(s));
    }
    return left;
  };
  const and = (): Value => {
    let left = not();
    while (peek() === '&&') {
      take();
      const [a, b] = [left, not()];
      left = (s) => truthy(a(s)) && truthy(b(s));
    }
    return left;
  };
  const not = (): Value => {
    if (peek() !== '!') return comparison();
    take();
    const inner = not();
    return (s) => !truthy(inner(s));
  };
  const comparison = (): Value => {
    const left = primary();
    const op = peek();
    if (op === undefined || !['==', '!=', '<', '<=', '>', '>='].includes(op)) return left;
    take();
    const right = primary();
    return (s) => compare(op, left(s), right(s));
  };
  const primary = (): Value => {
    const next = take();
    if (next === '(') {
      const inner = or();
      take(')');
      return inner;
    }
    if (/^\d/.test(next)) {
      const number = Number(next);
      return () => number;
    }
    if (next.startsWith('"') || next.startsWith("'")) {
      const string = next.slice(1, -1).replace(/\\(.)/g, '$1');
      return () => string;
    }
    if (next === 'true' || next === 'false' || next === 'null') {
      const literal = next === 'null' ? null : next === 'true';
      return () => literal;
    }
    if (!/^[A-Za-z_]/.test(next)) throw new ConditionSyntaxError(`unexpected "${next}" in condition "${text}"`);
    const path: Array<string | number> = [next];
    while (peek() === '.' || peek() === '[') {
      if (take() === '.') path.push(take());
      else {
        const index = take();
        if (!/^\d+$/.test(index)) throw new ConditionSyntaxError(`expected an index, not "${index}", in condition "${text}"`);
        path.push(Number(index));
        take(']');
      }
    }
    return (s) => path.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Record<string | number, unknown>)[key] : undefined), s);
  };
  const condition = or();
  if (at < tokens.length) throw new ConditionSyntaxError(`unexpected "${tokens[at]}" in condition "${text}"`);
  return (scope) => truthy(condition(scope));
}

function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

function compare(op: string, a: unknown, b: unknown): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
  }
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
  const [x, y] = [a as number | string, b as number | string];
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}
