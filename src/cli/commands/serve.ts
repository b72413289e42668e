import type { Command } from 'commander';
import { logLevelOption, parsePort, parsePositiveInteger } from '../parse.js';
import { addSecretOption, secretValue, secrets } from '../secrets.js';
import type { ServeCommandOptions } from '../options.js';
import { describeBuiltinVoices } from '../../service/builtin-voices.js';

export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description('run the self-hosted speech service (TTS, ASR, voice design, voice models, wallet, live WebSocket)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', parsePort, 8080)
    .option('--data <dir>', 'directory for the database and uploaded audio', '.shoal/data')
    .option('--drain-timeout <ms>', 'on SIGTERM: answer 503 to new requests, wait this long for those in progress, then exit 0', parsePositiveInteger, 30_000)
    .option('--key-rate <n>', 'requests per second per API key, counted in fixed windows of 2 s (2N per window; default 20); the same window on one instance and, shared, on a fleet with --database', parsePositiveInteger)
    .option('--key-live-sessions <n>', 'live sessions per API key at once (default 5); shared by the fleet with --database', parsePositiveInteger)
    .option('--listen-idle-timeout <ms>', 'close a /v1/listen socket after this long without audio or a message (default 10000, as Deepgram)', parsePositiveInteger)
    .option('--tts-streams <n>', 'HTTP TTS responses synthesised at once; one more is refused at once with 503 and Retry-After (default: one per core)', parsePositiveInteger)
    .addOption(logLevelOption('info'));
  addSecretOption(command, secrets.database);
  addSecretOption(command, secrets.redis);
  addSecretOption(command, secrets.devKey)
    .addHelpText(
      'after',
      `\nBuilt-in voices (usable as reference_id; details in docs/voices.md):\n${describeBuiltinVoices()}\n` +
        '\nmodel header: s1, s2-pro, s2.1-pro, s2.1-pro-free (default); voice design: voice-design-1.' +
        '\nProbes (no API key): GET /healthz, GET /readyz (503 while draining or while the database is unreachable), GET /metrics (Prometheus).' +
        '\nSeveral instances on one PostgreSQL share keys, credit, limits and voice models: see docs/deployment.md.',
    )
    .action(async ({ drainTimeout, ...rest }: Omit<ServeCommandOptions, 'drainTimeoutMs'> & { drainTimeout: number }) => {
      const { runServe } = await import('../run-serve.js');
      const devKey = secretValue(rest, secrets.devKey);
      const database = secretValue(rest, secrets.database);
      const redis = secretValue(rest, secrets.redis);
      await runServe({
        ...rest,
        drainTimeoutMs: drainTimeout,
        ...(devKey ? { devKey } : {}),
        ...(database ? { database } : {}),
        ...(redis ? { redis } : {}),
      });
    });
}
