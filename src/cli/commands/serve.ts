import type { Command } from 'commander';
import { logLevelOption, parsePort, parsePositiveInteger } from '../parse.js';
import type { ServeCommandOptions } from '../options.js';
import { describeBuiltinVoices } from '../../service/builtin-voices.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the self-hosted speech service (TTS, ASR, voice design, voice models, wallet, live WebSocket)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', parsePort, 8080)
    .option('--data <dir>', 'directory for the database and uploaded audio', '.shoal/data')
    .option('--dev-key <key>', 'create this API key (with starting credit) if it does not exist')
    .option('--drain-timeout <ms>', 'on SIGTERM: answer 503 to new requests, wait this long for those in progress, then exit 0', parsePositiveInteger, 30_000)
    .option('--tts-streams <n>', 'HTTP TTS responses synthesised at once; one more is refused at once with 503 and Retry-After (default: one per core)', parsePositiveInteger)
    .addOption(logLevelOption('info'))
    .addHelpText(
      'after',
      `\nBuilt-in voices (usable as reference_id; details in docs/voices.md):\n${describeBuiltinVoices()}\n` +
        '\nmodel header: s1, s2-pro, s2.1-pro, s2.1-pro-free (default); voice design: voice-design-1.' +
        '\nProbes (no API key): GET /healthz, GET /readyz (503 while draining), GET /metrics (Prometheus).',
    )
    .action(async ({ drainTimeout, ...rest }: Omit<ServeCommandOptions, 'drainTimeoutMs'> & { drainTimeout: number }) => {
      const { runServe } = await import('../run-serve.js');
      await runServe({ ...rest, drainTimeoutMs: drainTimeout });
    });
}
