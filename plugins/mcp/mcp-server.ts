import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { importOptional } from '../../src/optional/index.js';
import type { ChatTool, ToolContext } from '../openai/index.js';
import type { McpServerSpec } from './mcp-spec.js';


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
    const allowed = listed.tools.filter((tool) => !options.allow || options.allow.includes(tool.name));
    const speculative = [...(options.speculative ?? []), ...(typeof spec === 'string' ? [] : (spec.speculative ?? []))];
    for (const wanted of [...(options.allow ?? []), ...speculative]) {
      if (!listed.tools.some((tool) => tool.name === wanted)) {
        await server.close();
        throw new McpServerError(`MCP server ${name} has no tool "${wanted}" (its tools: ${listed.tools.map((t) => t.name).join(', ')})`);
      }
    }
    server.tools = allowed.map((tool) => ({
      name: `${name}.${tool.name}`,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.inputSchema as Record<string, unknown>,
      speculative: speculative.includes(tool.name),
      run: (args: Record<string, unknown>, context: ToolContext) => server.call(tool.name, args, context),
    }));
    return server;
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
    const url = typeof this.spec === 'string' ? (/^https?:\/\//.test(this.spec) ? this.spec : undefined) : 'url' in this.spec ? this.spec.url : undefined;
    if (url !== undefined) {
      const { StreamableHTTPClientTransport } = await importOptional<typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')>('@modelcontextprotocol/sdk', '/client/streamableHttp.js');
      return new StreamableHTTPClientTransport(new URL(url));
    }
    const { StdioClientTransport, getDefaultEnvironment } = await importOptional<typeof import('@modelcontextprotocol/sdk/client/stdio.js')>('@modelcontextprotocol/sdk', '/client/stdio.js');
    const spec = this.spec as Exclude<McpServerSpec, { url: string }>;
    const [command, ...args] = typeof spec === 'string' ? spec.split(/\s+/).filter(Boolean) : [spec.command, ...(spec.args ?? [])];
    const env = typeof spec === 'string' ? undefined : spec.env;
    return new StdioClientTransport({ command: command!, args, stderr: 'pipe', ...(env ? { env: { ...getDefaultEnvironment(), ...env } } : {}) });
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
