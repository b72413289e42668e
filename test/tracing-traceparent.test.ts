import { describe, expect, it } from 'vitest';
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent } from '../src/tracing/index.js';

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
  ])('rejects a %s header', (_name, header) => {
    expect(parseTraceparent(header)).toBeNull();
  });

  it('makes fresh ids of the right size that parse', () => {
    const header = formatTraceparent({ traceId: newTraceId(), parentId: newSpanId(), flags: 1 });
    expect(parseTraceparent(header)).not.toBeNull();
    expect(newTraceId()).not.toBe(newTraceId());
  });
});
