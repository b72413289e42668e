import { randomBytes } from 'node:crypto';
import type { ServeCommandOptions } from './options.js';
import { createLogger } from '../logging/index.js';
import { BuiltinVoices } from '../service/builtin-voices.js';
import { createSpeechService } from '../service/server.js';
import { ensureDevKey, openAccountServices } from '../service/store/index.js';
import { listenError } from './listen-error.js';

function newDevKey(): string {
  return `shoal-dev-${randomBytes(18).toString('base64url')}`;
}

/**
 * `shoal serve`: the speech service over the accounts and voice models of `--data`. Prints
 * `listening on http://HOST:PORT` when ready and shuts down cleanly on SIGINT/SIGTERM.
 */
export async function runServe(options: ServeCommandOptions): Promise<void> {
  const logger = createLogger({ level: options.logLevel }).child({ component: 'service' });
  if (options.redis && !options.database) throw new Error('--redis shares rate limits across a fleet: give --database postgres://... too (one instance counts in memory)');
  const accounts = await openAccountServices(options.data, {
    devKey: options.devKey,
    database: options.database,
    fleet: { redisUrl: options.redis, log: (event, message) => logger.warn(event, message) },
    rateLimit: {
      ...(options.keyRate ? { requestsPerSecond: options.keyRate, burst: 2 * options.keyRate } : {}),
      ...(options.keyLiveSessions ? { liveSessions: options.keyLiveSessions } : {}),
    },
  });
  if (!options.devKey && (await accounts.stores.accounts.listKeys()).every((key) => key.revokedAt)) {
    const devKey = newDevKey();
    await ensureDevKey(accounts.stores.accounts, devKey);
    const where = options.database ? 'the database' : options.data;
    process.stderr.write(`warning: no --dev-key given and ${where} holds no API key; created this dev key (it is shown once):\n${devKey}\n`);
  }
  const service = await createSpeechService({
    accounts: accounts.accounts,
    storeReady: accounts.ready,
    idempotency: accounts.idempotency,
    voices: new BuiltinVoices(accounts.voices),
    extraRoutes: [accounts.routes],
    ...(options.ttsStreams ? { limits: { ttsStreams: options.ttsStreams } } : {}),
    ...(options.listenIdleTimeout ? { listen: { idleTimeoutMs: options.listenIdleTimeout } } : {}),
    logger,
  });
  let url: string;
  try {
    url = await service.listen({ host: options.host, port: options.port });
  } catch (error) {
    await service.close();
    accounts.close();
    throw listenError(error, options.host, options.port);
  }
  process.stdout.write(`listening on ${url}\n`);

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        process.stderr.write(`${signal} again: exiting without waiting\n`);
        process.exit(130);
      }
      stopping = true;
      service.app.log.info({ signal, drainTimeoutMs: options.drainTimeoutMs }, 'draining, then shutting down');
      service
        .drain(options.drainTimeoutMs)
        .then(() => service.close())
        .catch((error: unknown) => service.app.log.error({ err: error }, 'closing the server failed'))
        .then(() => accounts.close())
        .catch((error: unknown) => service.app.log.error({ err: error }, 'closing the stores failed'))
        .finally(() => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
