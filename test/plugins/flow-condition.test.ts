import { describe, expect, it } from 'vitest';
import { ConditionSyntaxError, parseCondition } from '../../plugins/index.js';

const scope = { result: { ok: true, tries: 2, status: 'active', items: [{ id: 'a' }], none: null }, args: { rx: '1234567' }, slots: {} };
const holds = (text: string) => parseCondition(text)(scope);

describe('on_tool conditions', () => {
  it('read paths, literals, comparisons and logic', () => {
    expect(holds('result.ok')).toBe(true);
    expect(holds('!result.ok')).toBe(false);
    expect(holds('result.tries < 3 && result.status == "active"')).toBe(true);
    expect(holds("result.status != 'active' || args.rx == '1234567'")).toBe(true);
    expect(holds('result.items[0].id == "a"')).toBe(true);
    expect(holds('(result.tries >= 3 || !result.ok) && true')).toBe(false);
    expect(holds('result.none == null')).toBe(true);
  });

  it('treat a missing path as false, and never reach outside the scope', () => {
    expect(holds('result.missing.deeper')).toBe(false);
    expect(holds('result.items[5].id')).toBe(false);
    expect(holds('constructor')).toBe(false);
    expect(holds('result.constructor')).toBe(false);
    expect(holds('process')).toBe(false);
  });

  it('reject what they cannot read, saying where', () => {
    expect(() => parseCondition('result.ok &&')).toThrow(ConditionSyntaxError);
    expect(() => parseCondition('result.ok = 1')).toThrow(/cannot read "= 1"/);
    expect(() => parseCondition('result.ok)')).toThrow(/unexpected "\)"/);
    expect(() => parseCondition('result[x]')).toThrow(/expected an index/);
  });
});
