import type { Expectation } from '../../src/agent/index.js';
import type { ConversationState } from './script-state-machine.js';
import type { DialogueScript, SlotSpec } from './script-schema.js';

/**
 * What the caller may say next in `state`, read from the script: the slot the agent asked for (or the
 * state's missing ones), and the examples and keywords of the intents the state and the script's global
 * transitions listen for, and a yes/no while a turn awaits confirmation. Undefined when the call has ended or
 * the script expects nothing in particular.
 */
export function scriptExpectations(script: DialogueScript, state: ConversationState): Expectation[] | undefined {
  if (state.ended) return undefined;
  const current = script.states[state.state];
  if (!current) return undefined;
  // Asked to confirm a turn: a yes or a no, or the answer again.
  const expectations: Expectation[] = state.unconfirmed !== undefined ? [{ kind: 'yes-no' }] : [];
  const asked = state.awaiting !== undefined ? [state.awaiting] : (current.collect ?? []).map((item) => item.slot).filter((slot) => state.slots[slot] === undefined);
  for (const slot of asked) {
    const expectation = slotExpectation(script.slots[slot]);
    if (expectation) expectations.push(expectation);
  }
  const intents = [...(current.on ?? []), ...(script.global ?? [])].map((transition) => script.intents[transition.intent]).filter((intent) => intent !== undefined);
  const phrases = intents.flatMap((intent) => intent.examples);
  const keywords = intents.flatMap((intent) => intent.keywords);
  if (phrases.length > 0 || keywords.length > 0) expectations.push({ kind: 'phrases', phrases, keywords });
  return expectations.length > 0 ? expectations : undefined;
}

function slotExpectation(slot: SlotSpec | undefined): Expectation | undefined {
  switch (slot?.type) {
    case 'digits':
      return { kind: 'digits', ...(slot.min !== undefined ? { minLength: slot.min } : {}), ...(slot.max !== undefined ? { maxLength: slot.max } : {}) };
    case 'number':
      return { kind: 'number', ...(slot.min !== undefined ? { min: slot.min } : {}), ...(slot.max !== undefined ? { max: slot.max } : {}) };
    case 'time':
      return { kind: 'time' };
    case 'day':
      return { kind: 'date' };
    case 'choice':
      return { kind: 'choice', options: Object.entries(slot.values).flatMap(([value, phrases]) => [value, ...phrases]) };
    // Names and patterns are open-ended: nothing to listen for beyond open vocabulary.
    default:
      return undefined;
  }
}
