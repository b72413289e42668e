export { EchoDialogue, defaults as echoDefaults, type EchoDialogueOptions } from './echo-dialogue.js';
