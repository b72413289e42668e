import { describe, expect, it } from 'vitest';
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent } from '../../src/tracing/index.js';

describe('traceparent', () => {
  const valid = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

  it('parses a valid header and formats it back unchanged', () => {
    const parsed = parseTraceparent(valid);
    expect(parsed).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7', flags: 1 });
    expect(formatTraceparent(parsed!)).toBe(valid);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['all-zero parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['forbidden version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['short trace id', '00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01'],
    ['non-hex', '00-4bf92f3577b34da6a3ce929d0e0e473z-00f067aa0ba902b7-01'],
    ['non-hex version', '0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['non-hex parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01'],
    ['non-hex flags', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x'],
    ['one-digit version', '0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['short parent id', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902-01'],
    ['one-digit flags', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1'],
    ['leading text', 'x00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['trailing text', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x'],
  ])('rejects a %s header', (_name, header) => {
    expect(parseTraceparent(header)).toBeNull();
  });

  it('accepts a surrounding space, other flags, and ids that only start or end with zeros; refuses upper-case hex (W3C: lowercase only)', () => {
    expect(parseTraceparent(` ${valid} `)).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7', flags: 1 });
    expect(parseTraceparent(valid.toUpperCase())).toBeNull();
    expect(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00')?.flags).toBe(0);
    expect(parseTraceparent('00-00000000000000000000000000000001-1000000000000000-03')).toEqual({
      traceId: '00000000000000000000000000000001',
      parentId: '1000000000000000',
      flags: 3,
    });
    expect(parseTraceparent('00-10000000000000000000000000000000-0000000000000001-01')?.traceId).toBe('10000000000000000000000000000000');
    expect(formatTraceparent({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7', flags: 0 })).toMatch(/-00$/);
  });

  it('makes fresh ids of the right size that parse', () => {
    const header = formatTraceparent({ traceId: newTraceId(), parentId: newSpanId(), flags: 1 });
    expect(parseTraceparent(header)).not.toBeNull();
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
    expect(newTraceId()).not.toBe(newTraceId());
  });
});
