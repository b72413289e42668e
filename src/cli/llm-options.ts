import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Dialogue } from '../agent/index.js';
import { readSecretFile } from './secrets.js';
import type { TransferPolicy } from '../agent/transfer-target.js';
import type { ChatTool, McpServer, McpServerSpec } from '../../plugins/index.js';

/** The `--llm-*` options shared by `shoal talk` and `shoal agent`. */
export interface LlmCommandOptions {
  llmUrl?: string;
  llmModel?: string;
  llmKey?: string;
  /** `--llm-key-file`: the key read from a file. */
  llmKeyFile?: string;
  instructions?: string;
  /** `--tools FILE`: tools declared in a YAML or JSON file (`name: {description, parameters, http}`). */
  tools?: string;
  greeting?: string;
  /** `--mcp NAME=COMMAND` / `--mcp NAME=URL`, repeatable: MCP servers whose tools the model is offered. */
  mcp?: string[];
  /** `--mcp-tools server.tool,...`, repeatable: of the servers named, only these tools are offered. */
  mcpTools?: string[];
  /** `--mcp-speculative server.tool,...`, repeatable: MCP tools that may run for a speculative reply. */
  mcpSpeculative?: string[];
}

function collectMcp(value: string, previous: string[] = []): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_-]*=\S/.test(value)) throw new InvalidArgumentError('expected NAME=COMMAND (stdio) or NAME=URL (Streamable HTTP), e.g. bank="node bank-server.js"');
  return [...previous, value];
}

function collectToolNames(value: string, previous: string[] = []): string[] {
  const names = value.split(',').map((name) => name.trim()).filter(Boolean);
  const bad = names.find((name) => !/^[A-Za-z_][A-Za-z0-9_-]*\.\S+$/.test(name));
  if (names.length === 0 || bad !== undefined) throw new InvalidArgumentError(`expected server.tool names separated by commas, e.g. bank.block_card,bank.balance${bad ? ` (not server.tool: "${bad}")` : ''}`);
  return [...previous, ...names];
}

/**
 * The `--mcp` servers as `{name: spec}`, each with its `--mcp-speculative` tools; and the `--mcp-tools`
 * allow-list checked against them (a `server.tool` of a server not given is an error).
 */
export async function mcpChoice(options: Pick<LlmCommandOptions, 'mcp' | 'mcpTools' | 'mcpSpeculative'>): Promise<{ servers: Record<string, McpServerSpec>; allow: Map<string, string[]> | undefined }> {
  const { allowLists, withSpeculative } = await import('../../plugins/index.js');
  const entries = (options.mcp ?? []).map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)] as const);
  const names = entries.map(([name]) => name);
  const listed = (option: string, tools: readonly string[] = []) => {
    try {
      return allowLists(tools, names);
    } catch (error) {
      throw new LlmOptionError(`${option}: ${(error as Error).message}`);
    }
  };
  const allow = options.mcpTools ? listed('--mcp-tools', options.mcpTools) : undefined;
  const speculative = listed('--mcp-speculative', options.mcpSpeculative);
  return {
    servers: Object.fromEntries(entries.map(([name, spec]) => [name, withSpeculative(spec, speculative.get(name) ?? [])])),
    allow,
  };
}

/** The options that mean nothing without `--llm-url`. */
const strayKeys = ['llmModel', 'llmKey', 'llmKeyFile', 'instructions', 'tools', 'greeting', 'mcp', 'mcpTools', 'mcpSpeculative'] as const;

/** "--X needs --llm-url" for the first option given that means nothing without `--llm-url`, else undefined. */
export function strayLlmOption(options: LlmCommandOptions): string | undefined {
  if (options.llmUrl) return undefined;
  const stray = strayKeys.find((key) => options[key] !== undefined);
  return stray && `--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --llm-url`;
}

export const defaults = {
  model: 'gpt-4o-mini',
  greeting: 'Hello! How can I help you today?',
};

/** The `--llm-*` options cannot be used as given (an unreadable `--instructions` file, `--llm-model` without `--llm-url`). */
export class LlmOptionError extends Error {
  override readonly name = 'LlmOptionError';
}

function parseLlmUrl(value: string): string {
  const problem = 'expected the base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(problem);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError(problem);
  return value.replace(/\/+$/, '');
}

export function addLlmOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--llm-url <url>', 'talk to an OpenAI-compatible LLM (llama.cpp, Ollama, vLLM, OpenAI...) at this base URL ending in /v1')
        .argParser(parseLlmUrl)
        .conflicts('script'),
    )
    .option('--llm-model <name>', `model name sent to --llm-url (default: ${defaults.model})`)
    .option('--llm-key <key>', 'API key for --llm-url (default: $OPENAI_API_KEY; none for most local servers); prefer $OPENAI_API_KEY or --llm-key-file (a flag shows in ps)')
    .option('--llm-key-file <file>', 'read --llm-key from this file', readSecretFile)
    .option('--instructions <file>', "system prompt for --llm-url: a text file with the agent's instructions")
    .option('--tools <file>', 'tools for --llm-url: a YAML or JSON file of `name: {description, parameters, http: {url, method}}` (docs/llm-agents.md)')
    .option('--mcp <name=command|url>', 'offer the tools of an MCP server to the --llm-url model, as name_tool (repeatable)', collectMcp)
    .option('--mcp-tools <server.tool,...>', 'offer only these tools of the --mcp servers named (the others offer all theirs); a tool the server lacks fails at start (repeatable)', collectToolNames)
    .option('--mcp-speculative <server.tool,...>', 'MCP tools safe to run for a speculative reply, e.g. read-only lookups (default: none; the others wait until the turn is final) (repeatable)', collectToolNames)
    .option('--greeting <text>', `first line of the --llm-url agent (default: "${defaults.greeting}"; "" for none)`);
}

/** The LLM dialogue the options ask for, or undefined without `--llm-url`; its `--mcp` servers are added to `servers` (close them at the end). */
export async function llmDialogue(options: LlmCommandOptions, transfers?: TransferPolicy, servers: McpServer[] = []): Promise<Dialogue | undefined> {
  if (!options.llmUrl) {
    const stray = strayLlmOption(options);
    if (stray) throw new LlmOptionError(stray);
    return undefined;
  }
  let systemPrompt: string | undefined;
  if (options.instructions) {
    try {
      systemPrompt = readFileSync(options.instructions, 'utf8').trim();
    } catch (error) {
      throw new LlmOptionError(`cannot read --instructions ${options.instructions}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  const { ChatCompletionDialogue, transferTool, loadToolFile, McpServer, wireName } = await import('../../plugins/index.js');
  let fileTools: ChatTool[] = [];
  try {
    fileTools = options.tools ? loadToolFile(options.tools) : [];
  } catch (error) {
    throw new LlmOptionError(`--tools: ${(error as Error).message}`);
  }
  const mcp = await mcpChoice(options);
  const started: McpServer[] = [];
  try {
    for (const [name, spec] of Object.entries(mcp.servers)) {
      const server = await McpServer.connect(name, spec, mcp.allow?.has(name) ? { allow: mcp.allow.get(name)! } : {}).catch((error: Error) => {
        throw new LlmOptionError(`--mcp ${name}: ${error.message}`);
      });
      started.push(server);
      process.stderr.write(`shoal: MCP server ${name}: ${server.tools.map((tool) => wireName(tool.name)).join(', ') || 'no tools'}\n`);
      fileTools.push(...server.tools.map((tool) => ({ ...tool, name: wireName(tool.name) })));
    }
  } catch (error) {
    await Promise.all(started.map((server) => server.close()));
    throw error;
  }
  servers.push(...started);
  const transferTools = transfers && (Object.keys(transfers.targets).length > 0 || transfers.defaultTarget || transfers.allowAnyTarget) ? [transferTool(transfers)] : [];
  const model = options.llmModel ?? defaults.model;
  return new ChatCompletionDialogue({
    baseUrl: options.llmUrl,
    model,
    name: `llm ${model}`,
    ...(options.greeting !== '' ? { greeting: options.greeting ?? defaults.greeting } : {}),
    endCallTool: true,
    expectTool: true,
    tools: [...fileTools, ...transferTools],
    ...((options.llmKey ?? options.llmKeyFile) ? { apiKey: options.llmKey ?? options.llmKeyFile } : {}),
    ...(systemPrompt ? { systemPrompt } : {}),
  });
}
