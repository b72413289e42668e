import { z } from 'zod';
import { resolveTransfer, type TransferPolicy } from '../../src/agent/index.js';
import { defineTool, type ChatTool } from './tools.js';

export const TRANSFER_TOOL = 'transfer_call';

/**
 * `transfer_call` for a model, checked against the operator's transfer targets when the model calls it: a
 * target that is not allowed comes back to the model as an error it reads (so it tells the caller it cannot
 * transfer there) and no transfer happens; an allowed one is carried out when the agent next ends the call.
 */
export function transferTool(policy: TransferPolicy): ChatTool {
  const names = Object.keys(policy.targets);
  return defineTool({
    name: TRANSFER_TOOL,
    description:
      'Transfer the caller to a person or department, then end your part of the call (say goodbye first). ' +
      (names.length > 0 ? `Targets: ${names.join(', ')}.` : 'Use when the caller asks for a person.'),
    parameters: z.object({
      to: z.string().optional().describe(names.length > 0 ? `one of: ${names.join(', ')}` : 'who to transfer to'),
      announce: z.string().optional().describe('a short sentence the caller hears just before the transfer'),
    }),
    run: (args) => {
      const { to, name } = resolveTransfer(args, policy);
      return { transferring_to: name ?? to };
    },
  });
}
