import { Command, Option } from 'commander';
import { callsPerCore, defaults as admissionDefaults } from '../../agent/admission.js';
import { parsePort, parsePositiveInteger } from '../parse.js';

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
  /** Calls taken at once; default: derived from the cores (admissionDefaults.maxCalls). */
  maxCalls?: number;
  /** On SIGTERM, the longest wait for calls in progress to end before they are cut. */
  drainTimeoutMs?: number;
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
    .option('--max-calls <n>', `calls taken at once; more hear a busy line / see "busy" (default: ${callsPerCore} per core = ${admissionDefaults.maxCalls})`, parsePositiveInteger)
    .option('--drain-timeout <ms>', 'on SIGTERM: stop taking calls, wait this long for calls in progress to end, then exit 0', parsePositiveInteger, 30_000)
    .addHelpText('after', '\nProbes on the same port: GET /healthz (alive), GET /readyz (200 while taking calls, 503 when full or draining), GET /metrics (Prometheus).')
    .action(async (raw: AgentCommandOptions & { drainTimeout?: number }) => {
      const options: AgentCommandOptions = { ...raw, drainTimeoutMs: raw.drainTimeout };
      const { runAgentCommand } = await import('../run-agent.js');
      await runAgentCommand(options);
    });
}
