import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { importOptional } from '../../src/optional/index.js';
import type { ChatTool, ToolContext } from '../openai/index.js';
import { mcpSpecObject, type McpServerSpec } from './mcp-spec.js';


export interface McpOptions {
  /** Limit for one tool call, ms (default 10 000); the model is told when it is reached. */
  timeoutMs?: number;
  /** Tools of the server to offer (its tool names); all of them when absent. */
  allow?: readonly string[];
  /**
   * Tools of the server that may run for a speculative reply (its tool names, added to the spec's `speculative`).
   * The others wait until the caller's turn is final and never run for a reply that is thrown away.
   */
  speculative?: readonly string[];
}

/** The MCP server could not be started, listed, or stopped and did not come back. */
export class McpServerError extends Error {
  override readonly name = 'McpServerError';
  readonly status = 502;
}

/**
 * One MCP server's tools as `ChatTool`s named `server.tool` (offered to a model as `server_tool`). A call has a
 * timeout and is cancelled with the reply (its `signal`: barge-in, hang-up); an error the server reports
 * (`isError`) is the tool's error, which the model reads. A server that stops is started again once, at the
 * next call; if it stops again its calls fail with that.
 */
export class McpServer {
  private client: Client | undefined;
  private restarts = 0;
  private stopped = false;
  private closing = false;
  tools: ChatTool[] = [];

  private constructor(readonly name: string, private readonly spec: McpServerSpec, private readonly options: McpOptions) {}

  /** Starts (or connects to) the server and lists its tools. */
  static async connect(name: string, spec: McpServerSpec, options: McpOptions = {}): Promise<McpServer> {
    const server = new McpServer(name, spec, options);
    await server.start();
    const listed = await server.client!.listTools();
    const speculative = [...(options.speculative ?? []), ...(typeof spec === 'string' ? [] : (spec.speculative ?? []))];
    server.tools = listed.tools.map((tool) => ({
      name: `${name}.${tool.name}`,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.inputSchema as Record<string, unknown>,
      speculative: speculative.includes(tool.name),
      run: (args: Record<string, unknown>, context: ToolContext) => server.call(tool.name, args, context),
    }));
    try {
      server.offered(speculative);
      server.tools = server.offered(options.allow);
    } catch (error) {
      await server.close();
      throw error;
    }
    return server;
  }

  /**
   * The tools an agent is offered: those named in `allow` (names on the server), or all without it. A name the
   * server does not have is an error that lists the ones it has.
   */
  offered(allow?: readonly string[]): ChatTool[] {
    if (!allow) return this.tools;
    const toolName = (tool: ChatTool) => tool.name.slice(this.name.length + 1);
    const missing = allow.find((name) => !this.tools.some((tool) => toolName(tool) === name));
    if (missing !== undefined) throw new McpServerError(`MCP server ${this.name} has no tool "${missing}" (its tools: ${this.tools.map(toolName).join(', ')})`);
    return this.tools.filter((tool) => allow.includes(toolName(tool)));
  }

  private async start(): Promise<void> {
    const { Client } = await importOptional<typeof import('@modelcontextprotocol/sdk/client/index.js')>('@modelcontextprotocol/sdk', '/client/index.js');
    const client = new Client({ name: 'shoal', version: '1' });
    try {
      await client.connect(await this.transport());
    } catch (error) {
      throw new McpServerError(`cannot start MCP server ${this.name} (${describe(this.spec)}): ${error instanceof Error ? error.message : String(error)}`);
    }
    client.onclose = () => {
      if (!this.closing) this.stopped = true;
    };
    this.client = client;
    this.stopped = false;
  }

  private async transport(): Promise<Transport> {
    const spec = mcpSpecObject(this.spec);
    if ('url' in spec) {
      const { StreamableHTTPClientTransport } = await importOptional<typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')>('@modelcontextprotocol/sdk', '/client/streamableHttp.js');
      return new StreamableHTTPClientTransport(new URL(spec.url));
    }
    const { StdioClientTransport, getDefaultEnvironment } = await importOptional<typeof import('@modelcontextprotocol/sdk/client/stdio.js')>('@modelcontextprotocol/sdk', '/client/stdio.js');
    const { command, args = [], env } = spec;
    return new StdioClientTransport({ command, args, stderr: 'pipe', ...(env ? { env: { ...getDefaultEnvironment(), ...env } } : {}) });
  }

  private async call(tool: string, args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    if (this.stopped) {
      if (this.restarts >= 1) throw new McpServerError(`MCP server ${this.name} stopped and did not come back`);
      this.restarts++;
      await this.start();
    }
    const timeout = this.options.timeoutMs ?? 10_000;
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await this.client!.callTool({ name: tool, arguments: args }, undefined, { signal: context.signal, timeout });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/timed out/i.test(message)) throw new Error(`${this.name}.${tool} did not answer within ${timeout} ms`);
      throw new Error(`${this.name}.${tool} failed: ${message}`);
    }
    const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
    const text = content.flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : [])).join('\n');
    if (result.isError) throw new Error(text || `${this.name}.${tool} reported an error`);
    return result.structuredContent ?? text;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.client?.close().catch(() => undefined);
  }
}

function describe(spec: McpServerSpec): string {
  return typeof spec === 'string' ? spec : 'url' in spec ? spec.url : [spec.command, ...(spec.args ?? [])].join(' ');
}
