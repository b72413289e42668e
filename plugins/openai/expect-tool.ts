import { z } from 'zod';
import type { Expectation } from '../../src/agent/index.js';
import { defineTool } from './tools.js';

const expectation = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('free') }),
  z.object({ kind: z.literal('yes-no') }),
  z.object({ kind: z.literal('digits'), minLength: z.number().int().min(1).optional(), maxLength: z.number().int().min(1).optional() }),
  z.object({ kind: z.literal('number'), min: z.number().optional(), max: z.number().optional() }),
  z.object({ kind: z.literal('time') }),
  z.object({ kind: z.literal('date') }),
  z.object({ kind: z.literal('choice'), options: z.array(z.string()).min(1) }),
  z.object({ kind: z.literal('phrases'), phrases: z.array(z.string()).min(1), keywords: z.array(z.string()).optional() }),
  z.object({ kind: z.literal('name'), names: z.array(z.string()).min(1) }),
]) satisfies z.ZodType<Expectation>;

export const EXPECT_TOOL = 'expect_answer';

const parameters = z.object({
  expectations: z.array(expectation).min(1).describe('What the caller may answer; several when any of them fits.'),
});

/**
 * The built-in tool that lets the model say what answer it expects to its question (digits, a yes or no,
 * one of some options...), so recognition listens for it. It has no side effects, so it runs speculatively.
 */
export const expectTool = defineTool({
  name: EXPECT_TOOL,
  description:
    'Call together with a question, to say what kind of answer you expect from the caller (a yes or no, digits, a number, ' +
    'a time, a date, one of some options, a name). It helps speech recognition; it does not change what you say.',
  parameters,
  speculative: true,
  run: () => ({ ok: true }),
});

/** The expectations in an `expect_answer` call's arguments, or undefined when they are not valid. */
export function expectationsOf(args: Record<string, unknown>): Expectation[] | undefined {
  const parsed = parameters.safeParse(args);
  return parsed.success ? parsed.data.expectations : undefined;
}
