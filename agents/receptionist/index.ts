import { ScriptedDialogue, type ScriptedDialogueOptions } from '../../plugins/index.js';
import { agentScript } from '../script-file.js';

/** The Harbour Kitchen's receptionist: books tables (party size, day, time, optional name), gives opening hours. */
export function createReceptionist(options: ScriptedDialogueOptions = {}): ScriptedDialogue {
  return new ScriptedDialogue(agentScript(import.meta.url, 'receptionist.yaml'), options);
}
