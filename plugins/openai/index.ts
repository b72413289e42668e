export { ChatCompletionDialogue, defaults as chatCompletionDefaults, type ChatCompletionDialogueOptions } from './chat-completion-dialogue.js';
export { defineTool, runTool, ToolArgumentsError, type ChatTool, type ToolContext, type ToolDefinition, type ToolOutcome } from './tools.js';
export { expectTool, EXPECT_TOOL } from './expect-tool.js';
export { toChatMessages } from './chat-messages.js';
export type { ChatEndpoint, CompletionEvent, RetryOptions } from './completion-stream.js';
export { ChatCompletionHttpError, ChatCompletionConnectionError, ChatCompletionStreamError } from './errors.js';
export { transferTool, TRANSFER_TOOL } from './transfer-tool.js';
export { declaredTool, declaredTools, loadToolFile, toolDeclarationSchema, toolDeclarationsSchema, ToolFileError, type ToolDeclaration } from './declared-tools.js';
