import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadScript, parseScript, ScriptedDialogue, type DialogueScript, type ScriptFormat } from '../scripted/index.js';
import type { Dialogue } from '../../src/agent/index.js';
import { FlowDialogue, type FlowDialogueOptions } from './flow-dialogue.js';
import { findFlowProblems } from './flow-references.js';
import { McpServer } from '../mcp/index.js';
import { flowSchema, type Flow } from './flow-schema.js';

/** What a flow may name besides what it declares: tools given in code. */
export interface FlowLoadOptions {
  tools?: readonly string[];
}

function flowFormat(options: FlowLoadOptions): ScriptFormat<Flow> {
  return { schema: flowSchema, references: (flow) => findFlowProblems(flow, options.tools ?? [], Object.keys(flow.mcp)) };
}

/** Reads and checks a flow file (a scripted dialogue whose states may be LLM states); throws `ScriptValidationError` naming each bad field and line. */
export function loadFlow(file: string, options: FlowLoadOptions = {}): Flow {
  return loadScript(file, flowFormat(options));
}

export function parseFlow(text: string, source = 'flow', options: FlowLoadOptions = {}): Flow {
  return parseScript(text, source, undefined, flowFormat(options));
}

/** True when the file has LLM states (or a model), so it needs a `FlowDialogue` rather than a `ScriptedDialogue`. */
export function isFlow(flow: Flow): boolean {
  return flow.llm !== undefined || Object.values(flow.states).some((state) => state.llm !== undefined);
}

/** A dialogue file opened for calls: `create` makes one call's dialogue; `close` stops the file's MCP servers. */
export interface OpenedDialogueFile {
  create(): Dialogue;
  close(): Promise<void>;
}

/**
 * Opens a dialogue file: a plain script, or a flow whose MCP servers are started (each offering the tools the
 * flow names as `server.tool`) before the first call.
 */
export async function openDialogueFile(file: string, options: FlowDialogueOptions = {}): Promise<OpenedDialogueFile> {
  const create = dialogueFileFactory(file, options);
  const probe = create();
  if (!(probe instanceof FlowDialogue) || Object.keys(probe.flow.mcp).length === 0) return { create, close: async () => undefined };
  const servers = await connectFlowServers(probe.flow);
  const tools = [...(options.tools ?? []), ...servers.flatMap((server) => server.tools)];
  return { create: () => new FlowDialogue(probe.flow, { ...options, tools }), close: async () => void (await Promise.all(servers.map((server) => server.close()))) };
}

/** Starts a flow's MCP servers, each allowed the tools the flow names. */
async function connectFlowServers(flow: Flow): Promise<McpServer[]> {
  const named = [...flow.global_tools, ...Object.values(flow.states).flatMap((state) => state.llm?.tools ?? [])].filter((name) => name.includes('.'));
  const servers: McpServer[] = [];
  try {
    for (const [name, spec] of Object.entries(flow.mcp)) {
      const allow = [...new Set(named.filter((tool) => tool.startsWith(`${name}.`)).map((tool) => tool.slice(name.length + 1)))];
      servers.push(await McpServer.connect(name, spec, { allow, ...(flow.mcp_timeout_ms !== undefined ? { timeoutMs: flow.mcp_timeout_ms } : {}) }));
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.close()));
    throw error;
  }
  return servers;
}

/**
 * A dialogue file as a factory of per-call dialogues: a plain script gives `ScriptedDialogue`s, a flow with
 * LLM states `FlowDialogue`s (with the code tools in `options.tools`).
 */
export function dialogueFileFactory(file: string, options: FlowDialogueOptions = {}): () => Dialogue {
  const text = readFileSync(file, 'utf8');
  const looksLikeFlow = (() => {
    try {
      const value = parse(text) as { llm?: unknown; states?: Record<string, { llm?: unknown }> } | null;
      return value?.llm !== undefined || Object.values(value?.states ?? {}).some((state) => state?.llm !== undefined);
    } catch {
      return false;
    }
  })();
  if (!looksLikeFlow) {
    const script: DialogueScript = loadScript(file);
    return () => new ScriptedDialogue(script);
  }
  const flow = loadFlow(file, { tools: (options.tools ?? []).map((tool) => tool.name) });
  return () => new FlowDialogue(flow, options);
}
