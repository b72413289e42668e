import { Command } from 'commander';

function connectionOptions(command: Command): Command {
  return command
    .option('--service-url <url>', 'speech service base URL (default: the self-hosted service, in-process)')
    .option('--api-key <key>', 'API key (default: $FISH_API_KEY or $SHOAL_API_KEY)');
}

export function registerTts(program: Command): void {
  connectionOptions(
    program
      .command('tts <text>')
      .description('synthesise text to an audio file')
      .requiredOption('-o, --out <file>', 'output file; the format follows the extension (.wav .mp3 .opus .ogg .pcm)')
      .option('--voice <reference_id>', 'voice model id or built-in voice')
      .option('--speed <n>', 'speaking rate 0.5 to 2.0', Number)
      .option('--sample-rate <hz>', 'output sample rate', Number)
      .option('--model <model>', 'TTS model header', 's2.1-pro-free'),
  ).action(async (text: string, options) => (await import('../run-oneshot.js')).runTts(text, options));
}

export function registerAsr(program: Command): void {
  connectionOptions(
    program
      .command('asr <file>')
      .description('transcribe an audio file (WAV, MP3, Opus, FLAC)')
      .option('--language <code>', 'language code such as en')
      .option('--json', 'print the full result with timed segments as JSON'),
  ).action(async (file: string, options) => (await import('../run-oneshot.js')).runAsr(file, options));
}
