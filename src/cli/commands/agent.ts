import { Command, Option } from 'commander';
import { addLlmOptions } from '../llm-options.js';
import type { AgentCommandOptions } from '../options.js';
import { logLevelOption, parsePort, parsePositiveInteger } from '../parse.js';
import { addSecretOption, secretValue, secrets } from '../secrets.js';
import { asrOption, maxCallsDefaultHelp } from '../speech-engines.js';
import { addProviderOptions } from '../provider-options.js';

/** The phone options `shoal agent` and `shoal call` share. */
export function addPhoneOptions(command: Command): Command {
  return command
    .option('--public-url <url>', 'public https URL carriers reach this server at (default: $SHOAL_PUBLIC_URL); serves POST /twilio/voice')
    .option('--transfer <name=number>', 'where transfer_call {to: name} goes: a +E.164 number or sip: URI (repeatable)', collect, [])
    .option('--transfer-to <number>', 'where transfer_call goes when it names no known target')
    .option('--allow-any-transfer-target', 'let transfer_call dial any number or SIP URI the dialogue gives (default: only --transfer and --transfer-to; an LLM can be talked into dialling premium numbers)')
    .option('--transfer-unknown-to-default', 'send transfer_call to --transfer-to when it names an unknown target (default: the dialogue is told the name is unknown and which exist)');
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function registerAgent(program: Command): void {
  const command = program
    .command('agent')
    .description('run an agent with its transports: the browser demo page at / and telephony media-stream endpoints')
    .option('--agent <name>', 'ready-made agent to run', 'receptionist')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port of the demo page and transports', parsePort, 3000)
    .addOption(new Option('--mode <mode>', 'turn-taking mode').choices(['low-latency', 'balanced']).default('balanced'))
    .option('--script <file>', 'run a scripted dialogue from a JSON or YAML file instead of --agent')
    .option('--service-url <url>', 'hosted speech service base URL (default: the self-hosted service, in-process)')
    .addOption(asrOption())
    .option('--max-calls <n>', `calls taken at once; more hear a busy line / see "busy" (${maxCallsDefaultHelp()})`, parsePositiveInteger)
    .option('--drain-timeout <ms>', 'on SIGTERM: stop taking calls, wait this long for calls in progress to end, then exit 0', parsePositiveInteger, 30_000)
    .addOption(logLevelOption('info'))
    .option('--allow-origin <origin>', 'another web origin whose pages may open calls (repeatable); the page\'s own always may', (value: string, all: string[]) => [...all, value], [])
    .option('--data-dir <dir>', 'where call records are kept (SQLite)', '.shoal/agent')
    .option('--no-call-records', 'keep no record of calls (default: every call is recorded, see docs/call-records.md)')
    .option('--keep-calls <age>', 'delete call records older than this (30d, 12h, 90m); default: keep them')
    .option('--record-audio', "record each call's audio: caller left, agent right, Ogg Opus in the data folder (docs/call-records.md; callers may need to consent)")
    .option('--redact <kinds>', 'mask digits, cards and/or emails (comma-separated) in stored transcripts and tool arguments')
    .option('--public-calls', 'on a non-loopback --host, take browser and carrier calls without an access token or stream key (on purpose: anyone who reaches the port can call)')
    .addHelpText('after', '\nProbes on the same port: GET /healthz (alive), GET /readyz (200 while taking calls, 503 when full or draining), GET /metrics (Prometheus).')
    .addHelpText(
      'after',
      `
Phone calls: set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN and pass --public-url (a tunnel such as
https://abc.ngrok.app); point the Twilio number's voice webhook at POST <public-url>/twilio/voice.
Other carriers stream to /telephony/{telnyx,plivo,vonage,exotel}?key=$SHOAL_STREAM_KEY. See docs/telephony.md.
Before exposing the agent (a non-loopback --host, a --public-url), see docs/operations.md.`,
    );
  for (const spec of [secrets.apiKey, secrets.accessToken, secrets.streamKey, secrets.streamSecret, secrets.twilioAuthToken]) addSecretOption(command, spec);
  addLlmOptions(addPhoneOptions(addProviderOptions(command))).action(async (raw: AgentCommandOptions & { drainTimeout?: number }) => {
    const options: AgentCommandOptions = {
      ...raw,
      drainTimeoutMs: raw.drainTimeout,
      apiKey: secretValue(raw, secrets.apiKey),
      accessToken: secretValue(raw, secrets.accessToken),
      streamKey: secretValue(raw, secrets.streamKey),
      streamSecret: secretValue(raw, secrets.streamSecret),
      twilioAuthToken: secretValue(raw, secrets.twilioAuthToken),
    };
    const { runAgentCommand } = await import('../run-agent.js');
    await runAgentCommand(options);
  });
}
