import { resolve } from 'node:path';
import type { ChatTool, McpServer, McpServerSpec, OpenedDialogueFile } from '../../plugins/index.js';

/**
 * What the agents of a run of scenarios hold open across their calls: dialogue files (a flow's MCP servers with
 * them) and the MCP servers of `llm: {mcp}` / `--mcp`, each started once, on first use. `close()` stops them all,
 * so that the process can exit.
 */
export class AgentResources {
  private readonly files = new Map<string, Promise<OpenedDialogueFile>>();
  private readonly servers = new Map<string, Promise<McpServer>>();
  private closed = false;

  /** `started`: told each `mcpTools` server's name and the tool names it offers, once it is up. */
  constructor(private readonly started: (server: string, tools: readonly string[]) => void = () => undefined) {}

  /** The dialogue file at `path`, opened once. */
  dialogueFile(path: string): Promise<OpenedDialogueFile> {
    const file = resolve(path);
    return this.once(this.files, file, async () => {
      const { openDialogueFile } = await import('../../plugins/index.js');
      return openDialogueFile(file);
    });
  }

  /**
   * The tools of these MCP servers, offered under the names a model accepts (`bank_block_card`); with `allow`
   * (`server.tool` names), only those of the servers it names. A name of no server or tool given is an error.
   */
  async mcpTools(servers: Readonly<Record<string, McpServerSpec>>, allow: readonly string[] = []): Promise<ChatTool[]> {
    const { McpServer, allowLists, wireName } = await import('../../plugins/index.js');
    const allowed = allowLists(allow, Object.keys(servers));
    const tools: ChatTool[] = [];
    for (const [name, spec] of Object.entries(servers)) {
      const server = await this.once(this.servers, `${name}=${JSON.stringify(spec)}`, async () => {
        const connected = await McpServer.connect(name, spec);
        this.started(name, connected.tools.map((tool) => wireName(tool.name)));
        return connected;
      });
      tools.push(...server.offered(allowed.get(name)).map((tool) => ({ ...tool, name: wireName(tool.name) })));
    }
    return tools;
  }

  async close(): Promise<void> {
    this.closed = true;
    const files = [...this.files.values()].map((opened) => opened.then((file) => file.close(), () => undefined));
    const servers = [...this.servers.values()].map((started) => started.then((server) => server.close(), () => undefined));
    await Promise.all([...files, ...servers]);
    this.files.clear();
    this.servers.clear();
  }

  private once<T>(cache: Map<string, Promise<T>>, key: string, open: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the scenario run has ended: its MCP servers are stopped'));
    let opened = cache.get(key);
    if (!opened) {
      opened = open();
      cache.set(key, opened);
      // A file or server that failed to open is tried again by the next scenario that needs it.
      opened.catch(() => cache.delete(key));
    }
    return opened;
  }
}
