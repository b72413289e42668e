import { Command, Option } from 'commander';
import type { TalkCommandOptions } from '../options.js';
import { logLevelOption } from '../parse.js';
import { addLlmOptions } from '../llm-options.js';
import { addProviderOptions } from '../provider-options.js';
import { addRecordsOptions } from '../records-options.js';
import { addSecretOption, secrets, secretValue } from '../secrets.js';

export function registerTalk(program: Command): void {
  const command = program
    .command('talk')
    .description('play a recorded caller into an agent and report each turn')
    .requiredOption('--in <file>', 'the caller recording (WAV of any rate, mu-law or A-law too; MP3, Opus, FLAC)')
    .option('--out <file>', "write the agent's side as a WAV aligned to the call timeline")
    .option('--agent <name>', 'ready-made agent to run', 'receptionist')
    .option('--script <file>', 'run a scripted dialogue from a JSON or YAML file instead of --agent')
    .addOption(new Option('--mode <mode>', 'turn-taking mode').choices(['low-latency', 'balanced']).default('balanced'))
    .option('--service-url <url>', 'speech service base URL, e.g. a `shoal serve` (default: the self-hosted service, in-process)')
    .option('--json', 'print one JSON object per turn on stdout')
    .option('--fast', 'play the caller faster than real time')
    .addOption(logLevelOption('warn'));
  addSecretOption(command, secrets.apiKey);
  addLlmOptions(addProviderOptions(addRecordsOptions(command, { fleet: false }))).action(async (raw: TalkCommandOptions) => {
    const { runTalk } = await import('../run-talk.js');
    await runTalk({ ...raw, apiKey: secretValue(raw, secrets.apiKey) });
  });
}
