import { z } from 'zod';

const line = z.string().trim().min(1, 'must be a non-empty line of text');
/** One line, or several variants used in turn. */
const lines = z.union([line, z.array(line).min(1, 'needs at least one line')]);
const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must be a name of letters, digits, "_" or "-"');

const numberSlot = z.strictObject({
  type: z.literal('number'),
  min: z.number().int().optional(),
  max: z.number().int().optional(),
  /** Words after the number that mark it as this slot ("people", "guests"). */
  units: z.array(z.string().min(1)).optional(),
});
/** A code read digit by digit ("four one nine two", or keyed on the keypad); the value is the digit string. */
const digitsSlot = z
  .strictObject({
    type: z.literal('digits'),
    /** Fewest digits the answer may have. */
    min: z.number().int().min(1).optional(),
    /** Most digits the answer may have; keypad entry ends by itself once this many are keyed. */
    max: z.number().int().min(1).optional(),
  })
  .refine((slot) => slot.min === undefined || slot.max === undefined || slot.min <= slot.max, 'min must not exceed max');
const timeSlot = z.strictObject({
  type: z.literal('time'),
  /** Meridiem assumed for a bare hour ("at seven"). */
  meridiem: z.enum(['am', 'pm']).optional(),
});
const daySlot = z.strictObject({ type: z.literal('day') });
const nameSlot = z.strictObject({ type: z.literal('name') });
const choiceSlot = z.strictObject({
  type: z.literal('choice'),
  /** Value → words or phrases that mean it. */
  values: z.record(identifier, z.array(z.string().min(1))),
});
const patternSlot = z.strictObject({
  type: z.literal('pattern'),
  /** Regular expression over the normalised transcript; the first capture group (or the match) is the value. */
  regex: z.string().min(1),
});
export const slotSchema = z.discriminatedUnion('type', [numberSlot, digitsSlot, timeSlot, daySlot, nameSlot, choiceSlot, patternSlot]);

export const intentSchema = z.strictObject({
  /** Phrases the caller might say; scored by fuzzy word overlap. */
  examples: z.array(line).default([]),
  /** Words or short phrases whose presence alone (fuzzily) means this intent. */
  keywords: z.array(line).default([]),
  /** Slots read from the utterance when this intent wins. */
  slots: z.array(identifier).default([]),
});

const actionSchema = z.strictObject({
  name: identifier,
  /** Argument values; strings are reply templates (`"{party_size}"` keeps the slot's raw value). */
  arguments: z.record(z.string(), z.unknown()).optional(),
});

const outcomeShape = {
  reply: lines.optional(),
  goto: identifier.optional(),
  /** Ends the call after the reply; a string is the reason given with the end-call signal. */
  end: z.union([z.boolean(), line]).optional(),
  action: actionSchema.optional(),
  /** Slots forgotten before going on. */
  clear: z.array(identifier).optional(),
  /** Says the agent's previous line again (before `reply`). */
  repeat: z.boolean().optional(),
};
export const outcomeSchema = z.strictObject(outcomeShape);
export const transitionSchema = z.strictObject({ intent: identifier, ...outcomeShape });
export const escalateSchema = z.strictObject({
  /** Consecutive misses in a state before escalating. */
  after: z.number().int().min(1),
  ...outcomeShape,
});

const collectItemSchema = z.preprocess(
  (value) => (typeof value === 'string' ? { slot: value } : value),
  z.strictObject({
    slot: identifier,
    /** Asked when the slot is still empty; a slot with neither prompt nor default is optional. */
    prompt: line.optional(),
    /** Used when the caller did not say it (an offer, e.g. the first free time). */
    default: z.union([z.string().min(1), z.number()]).optional(),
  }),
);

export const stateSchema = z.strictObject({
  /** Said on entering the state. */
  say: lines.optional(),
  /** Slots to fill in this state, asked in order. */
  collect: z.array(collectItemSchema).optional(),
  /** Taken once every collected slot is filled (at once when the state has nothing to collect). */
  then: outcomeSchema.optional(),
  /** Intent transitions, tried before the script's `global` ones. */
  on: z.array(transitionSchema).optional(),
  fallback: lines.optional(),
  escalate: escalateSchema.optional(),
  reprompt: lines.optional(),
});

export const scriptSchema = z.strictObject({
  name: identifier,
  description: z.string().optional(),
  greeting: lines.optional(),
  start: identifier,
  reprompt: lines.optional(),
  /** Caller silence after the agent stops speaking before `reprompt` is said, ms (default: the agent's, 8000). */
  repromptAfterMs: z.number().int().min(500).optional(),
  /** Minimum intent score, 0..1. */
  threshold: z.number().min(0).max(1).optional(),
  /** Pause between streamed words, ms. */
  wordIntervalMs: z.number().min(0).optional(),
  /** Canonical word → variants counted as it, in examples, keywords and transcripts alike. */
  synonyms: z.record(z.string().min(1), z.array(z.string().min(1))).optional(),
  slots: z.record(identifier, slotSchema).default({}),
  intents: z.record(identifier, intentSchema),
  states: z.record(identifier, stateSchema),
  /** Intent transitions available in every state. */
  global: z.array(transitionSchema).optional(),
  /** Defaults for states without their own. */
  fallback: lines.optional(),
  escalate: escalateSchema.optional(),
  /**
   * Asked before slot values heard outside the expectations are acted on (an action or the end of the call);
   * `{heard}` is the values as understood.
   */
  confirm: lines.optional(),
});

export type DialogueScript = z.output<typeof scriptSchema>;
export type ScriptState = z.output<typeof stateSchema>;
export type ScriptIntent = z.output<typeof intentSchema>;
export type SlotSpec = z.output<typeof slotSchema>;
export type Outcome = z.output<typeof outcomeSchema>;
export type Transition = z.output<typeof transitionSchema>;
export type Escalation = z.output<typeof escalateSchema>;
export type Lines = z.output<typeof lines>;
