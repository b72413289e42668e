import { Option, type Command } from 'commander';
import { knownProviderNames } from '../../plugins/provider-names.js';
import { readSecretFile } from './secrets.js';

/** `--stt`, `--tts` and their URL and key options, as commander parses them. */
export interface ProviderCommandOptions {
  /** `PROVIDER[:MODEL][,PROVIDER…]`: recognition, in failover order. */
  stt?: string;
  /** `PROVIDER[:VOICE][,PROVIDER…]`: synthesis, in failover order. */
  tts?: string;
  sttUrl?: string;
  ttsUrl?: string;
  /** The key of the first `--stt` provider that takes one (`--stt-key-file`). */
  sttKeyFile?: string;
  ttsKeyFile?: string;
}

const names = knownProviderNames.join(', ');

/** Adds `--stt`, `--tts`, `--stt-url`, `--tts-url`, `--stt-key-file`, `--tts-key-file`. */
export function addProviderOptions(command: Command): Command {
  return command
    .option('--stt <providers>', `recognition: PROVIDER[:MODEL], a comma list fails over in order (${names}); e.g. deepgram:nova-3,local. Default: --asr`)
    .option('--tts <providers>', `synthesis: PROVIDER[:VOICE], a comma list fails over in order (${names}); e.g. cartesia,service. Default: service`)
    .option('--stt-url <url>', "base URL of the first --stt provider as its SDK takes it (a proxy, a region, a compatible server); default: its …_BASE_URL variable, else the provider's")
    .option('--tts-url <url>', 'base URL of the first --tts provider (as --stt-url)')
    .addOption(new Option('--stt-key-file <file>', "API key of the first --stt provider that takes one (default: its variable, e.g. $DEEPGRAM_API_KEY)").argParser(readSecretFile))
    .addOption(new Option('--tts-key-file <file>', 'API key of the first --tts provider that takes one (default: its variable, e.g. $CARTESIA_API_KEY)').argParser(readSecretFile));
}

