import { Command, Option } from 'commander';
import { parsePort } from '../parse.js';

export interface AgentCommandOptions {
  agent: string;
  host: string;
  port: number;
  mode: 'low-latency' | 'balanced';
  script?: string;
  serviceUrl?: string;
  apiKey?: string;
  allowOrigin?: string[];
  accessToken?: string;
}

export function registerAgent(program: Command): void {
  program
    .command('agent')
    .description('run an agent with its transports: the browser demo page at / and a telephony media-stream endpoint')
    .option('--agent <name>', 'ready-made agent to run', 'receptionist')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port of the demo page and transports', parsePort, 3000)
    .addOption(new Option('--mode <mode>', 'turn-taking mode').choices(['low-latency', 'balanced']).default('balanced'))
    .option('--script <file>', 'run a scripted dialogue from a JSON or YAML file instead of --agent')
    .option('--service-url <url>', 'hosted speech service base URL (default: the self-hosted service, in-process)')
    .option('--api-key <key>', 'API key for --service-url (default: $FISH_API_KEY or $SHOAL_API_KEY)')
    .option('--allow-origin <origin>', 'another web origin whose pages may open calls (repeatable); the page\'s own always may', (value: string, all: string[]) => [...all, value], [])
    .option('--access-token <token>', 'require this token on browser calls (open the page with ?access_token=...); default $SHOAL_AGENT_TOKEN')
    .action(async (options: AgentCommandOptions) => {
      const { runAgentCommand } = await import('../run-agent.js');
      await runAgentCommand(options);
    });
}
