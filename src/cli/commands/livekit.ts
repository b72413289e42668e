import { Command, InvalidArgumentError, Option } from 'commander';
import { addLlmOptions } from '../llm-options.js';
import type { LiveKitCommandOptions } from '../options.js';
import { parsePositiveInteger, parsePositiveNumber } from '../parse.js';
import { addSecretOption, secretValue, secrets } from '../secrets.js';
import { asrOption, maxCallsDefaultHelp } from '../speech-engines.js';
import { addProviderOptions } from '../provider-options.js';
import { addRecordsOptions } from '../records-options.js';

function parseTransfer(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  const target = value.slice(at + 1);
  if (at < 1 || !/^(sip|tel):/i.test(target)) throw new InvalidArgumentError('expected NAME=sip:... or NAME=tel:+..., e.g. "human agent=tel:+15550100".');
  return { ...previous, [value.slice(0, at)]: target };
}

function parseLoad(value: string): number {
  const load = parsePositiveNumber(value);
  if (load > 1) throw new InvalidArgumentError('a load threshold is a share of capacity, above 0 and at most 1.');
  return load;
}

export function registerLiveKit(program: Command): void {
  const command = program
    .command('livekit')
    .description("run agents as a worker on LiveKit's agent dispatch: many calls per process, load reporting, drain on SIGTERM")
    .option('--url <url>', 'LiveKit server URL (default: $LIVEKIT_URL)')
    .option('--agent-name <name>', 'register for explicit dispatch under this name; empty: automatic dispatch to every new room', process.env['LIVEKIT_AGENT_NAME'] ?? '')
    .addOption(new Option('--job-type <type>', 'one job per room, per publisher or per participant').choices(['room', 'publisher', 'participant']).default('room'))
    .option('--agent <name>', 'ready-made agent to run', 'receptionist')
    .option('--script <file>', 'run a scripted dialogue from a JSON or YAML file instead of --agent')
    .addOption(new Option('--mode <mode>', 'turn-taking mode').choices(['low-latency', 'balanced']).default('balanced'))
    .option('--service-url <url>', 'hosted speech service base URL (default: the self-hosted service, in-process)')
    .addOption(asrOption())
    .option('--max-calls <n>', `calls this process takes at once (${maxCallsDefaultHelp()})`, parsePositiveInteger)
    .option('--load-threshold <share>', 'load (calls / max calls) from which the worker tells LiveKit it is full', parseLoad, 1)
    .option('--caller-identity <identity>', 'the caller is this participant (default: the first one of --caller-kind to join)')
    .option('--caller-kind <kinds>', 'participant kinds that can be the caller, comma-separated: standard, sip, connector, ...', 'standard,sip,connector')
    .addOption(new Option('--end-call <how>', 'when the agent ends the call: delete the room (everyone leaves), remove the caller, or just leave').choices(['delete-room', 'remove-caller', 'leave']).default('delete-room'))
    .option('--transfer <name=uri>', 'where transfer_call sends a SIP caller, by the tool\'s "to" (repeatable)', parseTransfer)
    .option('--transfer-to <uri>', 'transfer target when "to" names none of --transfer')
    .option('--allow-any-transfer-target', 'let transfer_call dial any sip:/tel: URI the dialogue gives (default: only --transfer and --transfer-to; an LLM can be talked into dialling premium numbers)')
    .option('--transfer-unknown-to-default', 'send transfer_call to --transfer-to when it names an unknown target (default: the dialogue is told the name is unknown and which exist)')
    .option('--drain-timeout <ms>', 'on SIGTERM: stop taking jobs, wait this long for calls in progress, then end them and exit 0', parsePositiveInteger, 60_000)
    .addHelpText(
      'after',
      `
Dispatch: with no --agent-name, LiveKit sends this worker a job for every new room (automatic dispatch).
With --agent-name, only rooms that ask for that agent get it: a SIP dispatch rule's room configuration,
a participant token's room configuration, or AgentDispatchClient.createDispatch.

Run as many processes (on as many machines) as you need: LiveKit spreads jobs over the registered workers
by their load, and a worker at --load-threshold says it is full. The load is calls in progress (or accepted
and awaiting assignment) divided by --max-calls.

Examples:
  livekit-server --dev &                 # local server: ws://localhost:7880, key devkey, secret secret
  LIVEKIT_URL=ws://localhost:7880 LIVEKIT_API_KEY=devkey LIVEKIT_API_SECRET=secret shoal livekit
  shoal livekit --agent-name support --agent support --caller-kind sip --transfer "human agent=tel:+15550100"`,
    );
  for (const spec of [secrets.liveKitApiKey, secrets.liveKitApiSecret, secrets.serviceKey]) addSecretOption(command, spec);
  addLlmOptions(addProviderOptions(addRecordsOptions(command, { fleet: true }))).action(async (options: LiveKitCommandOptions) => {
      const { runLiveKitCommand } = await import('../run-livekit.js');
      await runLiveKitCommand({
        ...options,
        apiKey: secretValue(options, secrets.liveKitApiKey),
        apiSecret: secretValue(options, secrets.liveKitApiSecret),
        serviceKey: secretValue(options, secrets.serviceKey),
      });
    });
}
