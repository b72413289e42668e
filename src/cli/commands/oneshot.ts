import { Command } from 'commander';
import { parseNumberBetween, parsePositiveInteger } from '../parse.js';
import { addSecretOption, secretValue, secrets } from '../secrets.js';
import type { ServiceConnectionOptions } from '../options.js';

function connectionOptions(command: Command): Command {
  return addSecretOption(command.option('--service-url <url>', 'speech service base URL (default: the self-hosted service, in-process)'), secrets.apiKey);
}

/** The options with `--api-key-file` (or the environment) resolved into `apiKey`. */
function withKey<T extends object>(options: T): T & ServiceConnectionOptions {
  const apiKey = secretValue(options, secrets.apiKey);
  return { ...options, ...(apiKey ? { apiKey } : {}) };
}

export function registerTts(program: Command): void {
  connectionOptions(
    program
      .command('tts <text>')
      .description('synthesise text to an audio file')
      .requiredOption('-o, --out <file>', 'output file; the format follows the extension (.wav .mp3 .opus .ogg .pcm)')
      .option('--voice <reference_id>', 'voice model id or built-in voice')
      .option('--speed <n>', 'speaking rate 0.5 to 2.0', parseNumberBetween(0.5, 2))
      .option('--sample-rate <hz>', 'output sample rate', parsePositiveInteger)
      .option('--model <model>', 'TTS model header', 's2.1-pro-free'),
  ).action(async (text: string, options) => (await import('../run-oneshot.js')).runTts(text, withKey(options)));
}

export function registerAsr(program: Command): void {
  connectionOptions(
    program
      .command('asr <file>')
      .description('transcribe an audio file (WAV, MP3, Opus, FLAC)')
      .option('--language <code>', 'language code such as en')
      .option('--json', 'print the full result with timed segments as JSON'),
  ).action(async (file: string, options) => (await import('../run-oneshot.js')).runAsr(file, withKey(options)));
}
