import type { DialogueScript, Lines, Outcome } from './script-schema.js';
import { templateSlots } from './template.js';
import type { ScriptPath } from './errors.js';

export interface ReferenceProblem {
  path: ScriptPath;
  message: string;
}

/** Checks what the schema cannot: names pointing at states, intents and slots that exist, templates, regexes. */
export function findReferenceProblems(script: DialogueScript): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  const stateNames = Object.keys(script.states);
  const intentNames = Object.keys(script.intents);
  const slotNames = Object.keys(script.slots);
  const known = (names: string[]): string => (names.length ? names.join(', ') : 'none defined');

  const checkState = (name: string | undefined, path: ScriptPath): void => {
    if (name !== undefined && !script.states[name]) {
      problems.push({ path, message: `unknown state "${name}" (known states: ${known(stateNames)})` });
    }
  };
  const checkSlot = (name: string, path: ScriptPath): void => {
    if (!script.slots[name]) problems.push({ path, message: `unknown slot "${name}" (known slots: ${known(slotNames)})` });
  };
  const checkTemplate = (text: string, path: ScriptPath): void => {
    try {
      for (const slot of templateSlots(text)) checkSlot(slot, path);
    } catch (error) {
      problems.push({ path, message: `bad template: ${(error as Error).message}` });
    }
  };
  const checkLines = (value: Lines | undefined, path: ScriptPath): void => {
    if (value === undefined) return;
    if (typeof value === 'string') checkTemplate(value, path);
    else value.forEach((text, i) => checkTemplate(text, [...path, i]));
  };
  const checkOutcome = (outcome: Outcome | undefined, path: ScriptPath): void => {
    if (!outcome) return;
    checkLines(outcome.reply, [...path, 'reply']);
    checkState(outcome.goto, [...path, 'goto']);
    outcome.clear?.forEach((slot, i) => checkSlot(slot, [...path, 'clear', i]));
    for (const [key, value] of Object.entries(outcome.action?.arguments ?? {})) {
      if (typeof value === 'string') checkTemplate(value, [...path, 'action', 'arguments', key]);
    }
  };
  const checkTransitions = (list: Array<Outcome & { intent: string }> | undefined, path: ScriptPath): void => {
    list?.forEach((transition, i) => {
      if (!script.intents[transition.intent]) {
        problems.push({ path: [...path, i, 'intent'], message: `unknown intent "${transition.intent}" (known intents: ${known(intentNames)})` });
      }
      checkOutcome(transition, [...path, i]);
    });
  };

  checkState(script.start, ['start']);
  checkLines(script.greeting, ['greeting']);
  checkLines(script.reprompt, ['reprompt']);
  checkLines(script.fallback, ['fallback']);
  checkOutcome(script.escalate, ['escalate']);
  checkTransitions(script.global, ['global']);

  for (const [name, slot] of Object.entries(script.slots)) {
    if (slot.type === 'pattern') {
      try {
        new RegExp(slot.regex);
      } catch (error) {
        problems.push({ path: ['slots', name, 'regex'], message: `not a valid regular expression: ${(error as Error).message}` });
      }
    }
    if (slot.type === 'number' && slot.min !== undefined && slot.max !== undefined && slot.min > slot.max) {
      problems.push({ path: ['slots', name, 'max'], message: `max (${slot.max}) is below min (${slot.min})` });
    }
  }
  for (const [name, intent] of Object.entries(script.intents)) {
    if (intent.examples.length === 0 && intent.keywords.length === 0) {
      problems.push({ path: ['intents', name], message: 'needs at least one of "examples" or "keywords"' });
    }
    intent.slots.forEach((slot, i) => checkSlot(slot, ['intents', name, 'slots', i]));
  }
  for (const [name, state] of Object.entries(script.states)) {
    const path = ['states', name];
    checkLines(state.say, [...path, 'say']);
    checkLines(state.fallback, [...path, 'fallback']);
    checkLines(state.reprompt, [...path, 'reprompt']);
    state.collect?.forEach((item, i) => {
      checkSlot(item.slot, [...path, 'collect', i, 'slot']);
      if (item.prompt) checkTemplate(item.prompt, [...path, 'collect', i, 'prompt']);
    });
    if (state.collect?.length && !state.then) {
      problems.push({ path: [...path, 'then'], message: 'a state that collects slots needs "then" (what happens once they are filled)' });
    }
    if (state.then?.goto === name) {
      problems.push({ path: [...path, 'then', 'goto'], message: `"then" goes back to "${name}" itself without waiting for the caller` });
    }
    checkOutcome(state.then, [...path, 'then']);
    checkTransitions(state.on, [...path, 'on']);
    checkOutcome(state.escalate, [...path, 'escalate']);
  }
  return problems;
}
