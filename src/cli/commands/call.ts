import { Command, Option } from 'commander';
import { parsePort } from '../parse.js';
import { addSecretOption, secretValue, secrets } from '../secrets.js';
import { addPhoneOptions } from './agent.js';
import { addProviderOptions } from '../provider-options.js';
import type { CallCommandOptions } from '../options.js';

export function registerCall(program: Command): void {
  const command = program
    .command('call')
    .argument('<number>', 'the number to call, in E.164 form (+14155550100)')
    .description('call a phone number through Twilio and let an agent talk (serves the agent as `shoal agent` does until the call ends)')
    .option('--from <number>', 'your Twilio number to call from (default: $TWILIO_FROM_NUMBER)')
    .option('--agent <name>', 'ready-made agent to run', 'receptionist')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port the public URL forwards to', parsePort, 3000)
    .addOption(new Option('--mode <mode>', 'turn-taking mode').choices(['low-latency', 'balanced']).default('balanced'))
    .option('--script <file>', 'run a scripted dialogue from a JSON or YAML file instead of --agent')
    .option('--service-url <url>', 'hosted speech service base URL (default: the self-hosted service, in-process)')
    .option('--no-machine-detection', 'do not ask Twilio whether a person or a machine answered');
  for (const spec of [secrets.apiKey, secrets.twilioAuthToken, secrets.streamSecret]) addSecretOption(command, spec);
  addPhoneOptions(addProviderOptions(command))
    .addHelpText('after', '\nNeeds TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and a public URL (--public-url or SHOAL_PUBLIC_URL) forwarding to --port.')
    .action(async (number: string, options: CallCommandOptions) => {
      const { runCallCommand } = await import('../run-call.js');
      await runCallCommand(number, {
        ...options,
        apiKey: secretValue(options, secrets.apiKey),
        twilioAuthToken: secretValue(options, secrets.twilioAuthToken),
        streamSecret: secretValue(options, secrets.streamSecret),
      });
    });
}
