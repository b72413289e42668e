import type { ChatCompletionAssistantMessageParam, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ConversationMessage, ToolExchange } from '../../src/agent/index.js';

/**
 * The conversation in the chat-completions shape: caller turns as `user`, agent words as `assistant`, and
 * each run of tool entries as one `assistant` message with its `tool_calls` followed by one `tool` message
 * per result, in the order they happened.
 */
export function toChatMessages(history: readonly ConversationMessage[]): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  let pending: ToolExchange[] = [];
  const flushTools = () => {
    if (pending.length === 0) return;
    const previous = messages.at(-1);
    const calls = pending.map((tool) => ({ id: tool.id, type: 'function' as const, function: { name: tool.name, arguments: JSON.stringify(tool.arguments) } }));
    if (previous?.role === 'assistant' && !previous.tool_calls) previous.tool_calls = calls;
    else messages.push({ role: 'assistant', content: null, tool_calls: calls });
    for (const tool of pending) messages.push({ role: 'tool', tool_call_id: tool.id, content: toolResultContent(tool) });
    pending = [];
  };
  for (const message of history) {
    if (message.role === 'tool') {
      if (message.tool) pending.push(message.tool);
      continue;
    }
    flushTools();
    if (message.role === 'user') messages.push(userMessage(message.text, message.expected));
    else messages.push(assistantMessage(message));
  }
  flushTools();
  return messages;
}

const outsideExpectationsMark = '[heard outside the expected answers: may be misheard, confirm before acting on it]';

/**
 * A caller turn as the model reads it. A turn recognised with expectations whose words came out outside them
 * (`expected: false`) is marked, so that the model confirms before acting on words more likely misheard.
 */
export function userMessage(text: string, expected: boolean | undefined): ChatCompletionMessageParam {
  return { role: 'user', content: expected === false ? `${text} ${outsideExpectationsMark}` : text };
}

function assistantMessage(message: ConversationMessage): ChatCompletionAssistantMessageParam {
  return { role: 'assistant', content: message.interrupted ? `${message.text} [interrupted by the caller]`.trim() : message.text };
}

/** What the model reads as a tool's answer: the result as JSON, or `{"error": ...}` when it failed. */
export function toolResultContent(outcome: { result?: unknown; error?: string }): string {
  return outcome.error !== undefined ? JSON.stringify({ error: outcome.error }) : JSON.stringify(outcome.result ?? null);
}
