export { FlowDialogue, type FlowDialogueOptions } from './flow-dialogue.js';
export { loadFlow, parseFlow, isFlow, dialogueFileFactory, openDialogueFile, type OpenedDialogueFile, type FlowLoadOptions } from './flow-loader.js';
export { findFlowProblems } from './flow-references.js';
export { flowSchema, type Flow, type FlowState } from './flow-schema.js';
export { parseCondition, ConditionSyntaxError, type Condition } from './condition.js';
export { wireName } from './flow-tools.js';
