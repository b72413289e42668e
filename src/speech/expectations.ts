import { z } from 'zod';

/**
 * What the agent expects the caller to say in their next turn. Recognition and endpointing use it to listen
 * better (a grammar of digits, a list of choices); speech outside the expectations still comes out as
 * open-vocabulary text, never forced into one of them.
 */
export type Expectation =
  /** Anything: open vocabulary only. */
  | { kind: 'free' }
  | { kind: 'yes-no' }
  /** A digit string read digit by digit ("oh" is zero); the keypad (DTMF) may answer it, `#` ends entry. */
  | { kind: 'digits'; minLength?: number; maxLength?: number }
  /** A number said as a number ("twenty five"), within a range when one is given. */
  | { kind: 'number'; min?: number; max?: number }
  /** A time of day ("seven thirty", "half past six", "noon"). */
  | { kind: 'time' }
  /** A day or a date ("tomorrow", "friday", "march third"). */
  | { kind: 'date' }
  /** One of a short list of phrases. */
  | { kind: 'choice'; options: readonly string[] }
  /** Example phrases and keywords of what the caller may say (e.g. a dialogue's intents). */
  | { kind: 'phrases'; phrases: readonly string[]; keywords?: readonly string[] }
  /** A name from a list. */
  | { kind: 'name'; names: readonly string[] };

export type ExpectationKind = Expectation['kind'];

/** What callers say for yes and no, beyond the bare words: what a `yes-no` expectation listens for. */
export const yesAnswers: readonly string[] = ['yes', 'yeah', 'yep', 'yes please', 'sure', 'correct', 'that is right', 'right', 'okay'];
export const noAnswers: readonly string[] = ['no', 'nope', 'no thanks', 'no thank you', 'not really', 'wrong', 'that is wrong'];

/** True when `expectations` constrain nothing (absent, empty, or only `free`). */
export function isOpenVocabulary(expectations: readonly Expectation[] | undefined): boolean {
  return !expectations || expectations.every((expectation) => expectation.kind === 'free');
}

const phrase = z.string().min(1).max(200);
const phraseList = z.array(phrase).min(1).max(500);
const digitCount = z.number().int().min(1).max(64);

/**
 * The one schema of an expectation. The service validates `hints` of `POST /v1/asr` with it and the
 * OpenAI plugin's `expect_answer` tool sends it to the model as JSON Schema (`z.toJSONSchema`); the
 * `Expectation` type above is checked against it at compile time.
 */
export const expectationSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('free') }),
    z.strictObject({ kind: z.literal('yes-no') }),
    z.strictObject({ kind: z.literal('digits'), minLength: digitCount.optional(), maxLength: digitCount.optional() }),
    z.strictObject({ kind: z.literal('number'), min: z.number().optional(), max: z.number().optional() }),
    z.strictObject({ kind: z.literal('time') }),
    z.strictObject({ kind: z.literal('date') }),
    z.strictObject({ kind: z.literal('choice'), options: phraseList }),
    z.strictObject({ kind: z.literal('phrases'), phrases: phraseList, keywords: phraseList.optional() }),
    z.strictObject({ kind: z.literal('name'), names: phraseList }),
  ],
  { error: 'each expectation needs a kind: free, yes-no, digits, number, time, date, choice, phrases or name' },
);

// Compile-time check that the schema and the `Expectation` type describe the same shapes, both ways
// (the type's lists are readonly, the schema's output lists are not).
type ReadonlyList<V> = V extends Array<infer Item> ? readonly Item[] : V;
type ReadonlyLists<T> = { [K in keyof T]: ReadonlyList<T[K]> };
type SchemaExpectation = z.output<typeof expectationSchema> extends infer Each ? (Each extends unknown ? ReadonlyLists<Each> : never) : never;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesType: Same<SchemaExpectation, Expectation> = true;
void schemaMatchesType;
