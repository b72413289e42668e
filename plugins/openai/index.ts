export { ChatCompletionDialogue, defaults as chatCompletionDefaults, type ChatCompletionDialogueOptions, type ChatTool } from './chat-completion-dialogue.js';
export { ChatCompletionHttpError, ChatCompletionConnectionError, ChatCompletionStreamError } from './errors.js';
export { readServerSentEvents } from './sse-reader.js';
