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
