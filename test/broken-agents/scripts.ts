/**
 * Deliberately broken copies of the shipped scripts, each one regression a scenario suite must catch. Each is
 * the shipped file as it loads, with one change made in code, so that it stays the shipped agent in every
 * other respect.
 */
import { loadScript, ScriptedDialogue, type DialogueScript } from '../../plugins/index.js';

function shipped(file: string): DialogueScript {
  return structuredClone(loadScript(file));
}

/** The receptionist books the table as soon as it has the details, without "Does that sound good?". */
export function receptionistSkippingConfirmation(): ScriptedDialogue {
  const script = shipped('agents/receptionist/receptionist.yaml');
  const accepted = script.states['confirm']!.on!.find((transition) => transition.intent === 'yes')!;
  script.states['booking']!.then = { action: accepted.action, reply: accepted.reply, goto: 'anything_else' };
  return new ScriptedDialogue(script);
}

/** The support line says it is transferring the caller, but never asks the phone line to (no `transfer_call`). */
export function supportNeverTransferring(): ScriptedDialogue {
  const script = shipped('agents/support/support.yaml');
  const transitions = [...(script.global ?? []), ...Object.values(script.states).flatMap((state) => state.on ?? [])];
  for (const transition of transitions) {
    if (transition.action?.name === 'transfer_call') delete transition.action;
  }
  if (script.escalate?.action?.name === 'transfer_call') delete script.escalate.action;
  return new ScriptedDialogue(script);
}
