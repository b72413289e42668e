import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { expectationSchema, type Expectation } from '../../src/speech/index.js';
import { hintsSchema } from '../../src/service/asr/hints.js';
import { expectTool } from '../../plugins/openai/index.js';

const valid: Expectation[] = [
  { kind: 'free' },
  { kind: 'yes-no' },
  { kind: 'digits', minLength: 4, maxLength: 4 },
  { kind: 'number', min: 1, max: 10 },
  { kind: 'time' },
  { kind: 'date' },
  { kind: 'choice', options: ['red', 'blue'] },
  { kind: 'phrases', phrases: ['book a table'], keywords: ['table'] },
  { kind: 'name', names: ['Ada'] },
];
const invalid: unknown[] = [
  { kind: 'colour' },
  { kind: 'digits', maxLength: 0 },
  { kind: 'choice', options: [] },
  { kind: 'name', names: ['x'.repeat(201)] },
  { kind: 'free', extra: true },
];

describe('the expectation schema', () => {
  it('accepts every kind of Expectation and refuses malformed ones', () => {
    for (const expectation of valid) expect(expectationSchema.safeParse(expectation).success, JSON.stringify(expectation)).toBe(true);
    for (const expectation of invalid) expect(expectationSchema.safeParse(expectation).success, JSON.stringify(expectation)).toBe(false);
  });

  it('is what the service validates `hints` with', () => {
    expect(hintsSchema.safeParse(JSON.stringify(valid)).success).toBe(true);
    for (const expectation of invalid) expect(hintsSchema.safeParse([expectation]).success, JSON.stringify(expectation)).toBe(false);
  });

  it("is what the expect_answer tool sends the model as JSON Schema, and checks the model's arguments with", () => {
    const { $schema: _dialect, ...items } = z.toJSONSchema(expectationSchema, { io: 'input' }) as Record<string, unknown>;
    const parameters = expectTool.parameters as { properties: { expectations: { items: unknown } } };
    expect(parameters.properties.expectations.items).toEqual(items);
    const context = { callId: 'c', signal: new AbortController().signal };
    expect(expectTool.run!({ expectations: valid }, context)).toEqual({ ok: true });
    for (const expectation of invalid) expect(() => expectTool.run!({ expectations: [expectation] }, context)).toThrow();
  });
});
