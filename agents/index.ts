import type { Dialogue } from '../src/agent/index.js';
import { EchoDialogue } from '../plugins/index.js';
import { createReceptionist } from './receptionist/index.js';
import { createSupportAgent } from './support/index.js';

export interface AgentEntry {
  description: string;
  /** A fresh dialogue for one call. */
  create(): Dialogue;
}

/** Ready-made agents by name, as picked with `shoal agent --agent NAME` and `shoal talk --agent NAME`. */
export const agents: Record<string, AgentEntry> = {
  receptionist: {
    description: 'Restaurant receptionist (scripted): books a table, gives opening hours, declines the rest politely.',
    create: () => createReceptionist(),
  },
  support: {
    description: 'Customer support line (scripted): account balance questions, transfer to a human agent.',
    create: () => createSupportAgent(),
  },
  echo: {
    description: 'Repeats what the caller says; for trying out the pipeline.',
    create: () => new EchoDialogue(),
  },
};

export const defaultAgent = 'receptionist';

export class UnknownAgentError extends Error {
  readonly status = 404;
  constructor(readonly agent: string) {
    super(`unknown agent "${agent}"; available: ${Object.keys(agents).join(', ')}`);
    this.name = 'UnknownAgentError';
  }
}

/** A fresh dialogue of the named agent; throws `UnknownAgentError` naming the ones that exist. */
export function createDialogue(name: string): Dialogue {
  const entry = Object.hasOwn(agents, name) ? agents[name] : undefined;
  if (!entry) throw new UnknownAgentError(name);
  return entry.create();
}

/** @deprecated renamed `createDialogue`: it makes a Dialogue, not an agent. */
export const createAgent = createDialogue;

export { createReceptionist, createSupportAgent };
