import { z } from 'zod';
import { expectationSchema, type Expectation } from '../../src/speech/index.js';
import { defineTool } from './tools.js';

export const EXPECT_TOOL = 'expect_answer';

const parameters = z.object({
  expectations: z.array(expectationSchema).min(1).describe('What the caller may answer; several when any of them fits.'),
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
