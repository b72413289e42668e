import { z } from 'zod';
import { defineTool, type ChatTool } from '../openai/index.js';
import type { FlowState } from './flow-schema.js';

export const GOTO_TOOL = 'goto';
export const FILL_SLOTS_TOOL = 'fill_slots';

/** The model's way out of a state: a `goto` tool listing the states it may go to. */
export function gotoTool(targets: readonly string[]): ChatTool {
  return defineTool({
    name: GOTO_TOOL,
    description: `Move the conversation to another step when this step's task says so. Steps: ${targets.join(', ')}.`,
    parameters: z.object({ state: z.enum(targets as [string, ...string[]]) }),
    speculative: true,
  });
}

/** Lets the model fill the slots a state collects, as a caller's words would. */
export function fillSlotsTool(state: FlowState): ChatTool {
  const slots = (state.collect ?? []).map((item) => item.slot);
  return {
    name: FILL_SLOTS_TOOL,
    description: `Record what the caller told you, as soon as they said it: ${slots.join(', ')}.`,
    parameters: { type: 'object', properties: Object.fromEntries(slots.map((slot) => [slot, { type: ['string', 'number'] }])) },
    speculative: true,
  };
}

/** The name a tool is offered under: OpenAI-compatible servers accept `[A-Za-z0-9_-]` only (`bank.block_card` → `bank_block_card`). */
export function wireName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}
