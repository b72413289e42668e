import { ScriptedDialogue, type ScriptedDialogueOptions } from '../../plugins/index.js';
import { agentScript } from '../script-file.js';

/** A support line: account balance questions, transfer to a human agent, polite ending. */
export function createSupportAgent(options: ScriptedDialogueOptions = {}): ScriptedDialogue {
  return new ScriptedDialogue(agentScript(import.meta.url, 'support.yaml'), options);
}
