import type OpenAI from 'openai';
import { importOptional } from '../optional/index.js';
import type { SimulatedCallerSettings } from './scenario.js';

/** How a simulated caller's conversation ended. */
export type CallerEnding = 'goal_reached' | 'goal_failed' | 'max_turns' | 'agent_ended';

/** The caller model's next move: a line to say, or the end of its conversation (goal reached or failed). */
export type CallerMove = { say: string } | { end: 'goal_reached' | 'goal_failed'; reason: string; say?: string };

export const callerModelDefaults = { model: 'gpt-4o-mini', timeoutMs: 60_000, endTool: 'end_conversation' };

const endTool = {
  type: 'function' as const,
  function: {
    name: callerModelDefaults.endTool,
    description: 'End the call: your goal was reached, or it cannot be reached.',
    parameters: {
      type: 'object',
      properties: { outcome: { type: 'string', enum: ['goal_reached', 'goal_failed'] }, reason: { type: 'string' } },
      required: ['outcome'],
    },
  },
};

/** Markers a model without tool calls may end its line with. */
const markers = { goal_reached: /\[\s*goal[ _]reached\s*\]/i, goal_failed: /\[\s*goal[ _]failed\s*\]/i } as const;

function instructions(settings: SimulatedCallerSettings): string {
  return [
    'You are a caller on a phone call with a voice agent. Play the caller, never the agent.',
    settings.persona ? `Who you are: ${settings.persona}` : '',
    `Your goal: ${settings.goal}`,
    'Each of your messages is one short line you say aloud: plain words, no stage directions, no lists.',
    "You hear the agent through a speech recogniser, so its words may come out garbled: ask again if you did not understand.",
    `When your goal is reached, call ${callerModelDefaults.endTool} with outcome "goal_reached"; when it cannot be reached, with "goal_failed". ` +
      'Without tools, end your line with [GOAL REACHED] or [GOAL FAILED].',
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * The model behind a simulated caller: an OpenAI-compatible chat API. It is told what the caller heard (the
 * agent's audio as recognised) and answers with the caller's next line, or ends the conversation.
 */
export class CallerModel {
  private readonly messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;

  constructor(
    private readonly settings: SimulatedCallerSettings,
    private readonly seed: number,
  ) {
    this.messages = [{ role: 'system', content: instructions(settings) }];
  }

  /** The caller heard `heard` (empty: silence); its next move. */
  async next(heard: string): Promise<CallerMove> {
    this.messages.push({ role: 'user', content: heard.trim() || '(silence)' });
    const { text, end } = await this.ask();
    const line = text.replace(markers.goal_reached, '').replace(markers.goal_failed, '').trim();
    if (line) this.messages.push({ role: 'assistant', content: line });
    const marked = markers.goal_reached.test(text) ? 'goal_reached' : markers.goal_failed.test(text) ? 'goal_failed' : undefined;
    const ending = end ?? (marked ? { outcome: marked, reason: '' } : undefined);
    if (ending) return { end: ending.outcome, reason: ending.reason, ...(line ? { say: line } : {}) };
    if (!line) return { end: 'goal_failed', reason: 'the caller model gave no line' };
    return { say: line };
  }

  private async ask(): Promise<{ text: string; end?: { outcome: 'goal_reached' | 'goal_failed'; reason: string } }> {
    // The openai SDK is an optional peer: loaded only for a simulated caller, with an error naming the install when absent.
    const { default: OpenAIClient } = await importOptional<{ default: typeof OpenAI }>('openai');
    const apiKey = this.settings.llm.key ?? process.env.OPENAI_API_KEY;
    const client = new OpenAIClient({
      baseURL: this.settings.llm.url,
      apiKey: apiKey ?? 'unused',
      timeout: callerModelDefaults.timeoutMs,
      maxRetries: 1,
      defaultHeaders: apiKey ? {} : { Authorization: null },
    });
    const stream = await client.chat.completions.create({
      model: this.settings.llm.model ?? callerModelDefaults.model,
      seed: this.seed,
      stream: true,
      messages: this.messages,
      tools: [endTool],
    });
    let text = '';
    let name = '';
    let args = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      text += delta?.content ?? '';
      for (const call of delta?.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
    }
    if (name !== callerModelDefaults.endTool) return { text };
    let parsed: { outcome?: unknown; reason?: unknown } = {};
    try {
      parsed = JSON.parse(args || '{}') as typeof parsed;
    } catch {
      // arguments that are not JSON: the call still ends, as a failure to read the outcome
    }
    const outcome = parsed.outcome === 'goal_reached' ? 'goal_reached' : 'goal_failed';
    return { text, end: { outcome, reason: typeof parsed.reason === 'string' ? parsed.reason : '' } };
  }
}
