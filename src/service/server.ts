import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import multipart from '@fastify/multipart';
import { randomUUID } from 'node:crypto';
import { MediaPool } from '../engines/index.js';
import type { AccountGate, VoiceResolver } from './accounts.js';
import { BuiltinVoices } from './builtin-voices.js';
import { SingleKeyAccounts } from './single-key-accounts.js';
import { defaultLimits, type ServiceContext, type ServiceEngines, type ServiceLimits } from './context.js';
import { defaultEngines } from './engines.js';
import { sendError } from './http/errors.js';
import { installGate } from './http/gate.js';
import { installProbes, type ServiceDrain } from './http/probes.js';
import { answerClientError, applyConnectionLimits, defaults as connectionDefaults, httpServerOptions, type ConnectionLimits } from './http/connection-limits.js';
import { installMsgpackParser } from './http/content-type.js';
import { installIdempotency } from './http/idempotency.js';
import type { IdempotencyStore } from './store/idempotency-store.js';
import { registerTtsRoutes } from './tts/routes.js';
import { registerAsrRoute } from './asr/route.js';
import { registerOpenAiRoutes } from './openai/routes.js';
import { StreamAdmission } from './tts/stream-admission.js';
import { registerVoiceDesignRoute } from './voice-design/route.js';
import { LiveEndpoint } from './live/endpoint.js';
import { defaults as liveDefaults, type LiveOptions } from './live/options.js';
import { ListenEndpoint } from './listen/endpoint.js';
import { defaults as listenDefaults, type ListenOptions } from './listen/options.js';
import { registerPrerecordedRoute } from './listen/prerecorded.js';
import { warmListening } from './listen/warm-up.js';
import type { Logger } from '../logging/index.js';

export interface SpeechServiceOptions {
  /** Who may call, credit, rate and billing. Default: `SingleKeyAccounts` accepting `apiKey` only. */
  accounts?: AccountGate;
  /** The one accepted bearer key when `accounts` is not given. */
  apiKey?: string;
  /** Keeps the keys and responses of POSTs sent with `Idempotency-Key` (docs/service-api.md); without it the header is ignored. */
  idempotency?: IdempotencyStore;
  /** `/readyz` answers 503 while this says false (the accounts' database is unreachable). */
  storeReady?: () => boolean;
  /** Resolves `reference_id`s. Default: the built-in voices. */
  voices?: VoiceResolver;
  /** Engine factories. Default: flite TTS and pocketsphinx ASR, created on first use. */
  engines?: Partial<ServiceEngines>;
  /** pino level: silent, error, warn, info, debug. */
  logLevel: string;
  /** Where the JSON log lines go; default stdout. */
  logStream?: NodeJS.WritableStream;
  /** Logs through this pino logger (the CLI's) instead; `logLevel` and `logStream` are then unused. */
  logger?: Logger;
  /** More routes (fastify plugins) registered behind the same auth hook and error handler, e.g. /model and /wallet. */
  extraRoutes: FastifyPluginAsync<{ context: ServiceContext }>[];
  limits: Partial<ServiceLimits>;
  /** Timeouts and the cap on open connections. */
  connections: Partial<ConnectionLimits>;
  live: Partial<LiveOptions>;
  /** The Deepgram-compatible recognition endpoint (`/v1/listen`). */
  listen: Partial<ListenOptions>;
  /** Start the TTS engine (worker, compiled flite) before the service reports ready, so the first request is fast. */
  warmUp: boolean;
}

export const defaults: SpeechServiceOptions = {
  logLevel: 'info',
  extraRoutes: [],
  limits: defaultLimits,
  connections: connectionDefaults,
  live: liveDefaults,
  listen: listenDefaults,
  warmUp: true,
};

export interface SpeechService {
  app: FastifyInstance;
  context: ServiceContext;
  /** Starts listening; resolves with the base URL, e.g. `http://127.0.0.1:8080`. */
  listen(address: { host?: string; port?: number }): Promise<string>;
  /** Stops taking requests and live sessions (readyz 503, requests 503) and waits up to `timeoutMs` for those in progress (a live round runs to its finish). */
  drain(timeoutMs: number): Promise<void>;
  /** Closes live sessions and the HTTP server. */
  close(): Promise<void>;
}

/** Builds the speech service of docs/service-api.md: TTS, SSE with timestamps, live WebSocket, ASR and voice design. */
export async function createSpeechService(options: Partial<SpeechServiceOptions> = {}): Promise<SpeechService> {
  const settings = { ...defaults, ...options };
  const accounts = settings.accounts ?? singleKey(settings.apiKey);
  const context: ServiceContext = {
    accounts,
    voices: settings.voices ?? new BuiltinVoices(),
    engines: { ...defaultEngines(), ...settings.engines },
    limits: { ...defaultLimits, ...settings.limits },
  };
  const connections = { ...connectionDefaults, ...settings.connections };
  const app = Fastify({
    http: httpServerOptions(connections),
    keepAliveTimeout: connections.keepAliveTimeoutMs,
    clientErrorHandler: answerClientError,
    frameworkErrors: sendError,
    ...(settings.logger
      ? { loggerInstance: settings.logger as FastifyBaseLogger }
      : { logger: settings.logStream ? { level: settings.logLevel, stream: settings.logStream } : { level: settings.logLevel } }),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: context.limits.defaultBodyBytes,
    genReqId: () => randomUUID(),
    forceCloseConnections: true,
  });
  applyConnectionLimits(app.server, connections);
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ status: 404, message: `no route ${request.method} ${request.url.split('?')[0]}` }),
  );
  const probes: ServiceDrain = installProbes(app, settings.storeReady);
  installGate(app, accounts);
  if (settings.idempotency) installIdempotency(app, settings.idempotency);
  installMsgpackParser(app, context.limits.msgpack);
  await app.register(multipart, { limits: { fileSize: context.limits.asrAudioBytes, files: 1, fields: 10, parts: 12 } });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        latencyMs: Math.round(reply.elapsedTime * 10) / 10,
        traceId: request.traceId,
        userId: request.principal?.userId,
      },
      'request',
    );
  });

  const admission = new StreamAdmission(context.limits.ttsStreams);
  registerTtsRoutes(app, context, admission);
  registerAsrRoute(app, context);
  registerVoiceDesignRoute(app, context);
  const listenOptions = { ...listenDefaults, ...settings.listen };
  registerPrerecordedRoute(app, context, listenOptions);
  await registerOpenAiRoutes(app, context, admission);
  for (const plugin of settings.extraRoutes) await app.register(plugin, { context });

  const listen = new ListenEndpoint(app, context, listenOptions);
  const live = new LiveEndpoint(app, context, { ...liveDefaults, ...settings.live }, (request) => listen.handles(request));
  await app.ready();
  if (settings.warmUp) await warmUp(context.engines);

  return {
    app,
    context,
    async listen({ host = '127.0.0.1', port = 8080 }) {
      await app.listen({ host, port });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('server did not bind a TCP port');
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return `http://${shownHost}:${address.port}`;
    },
    async drain(timeoutMs) {
      await Promise.all([probes.drain(timeoutMs), live.drain(timeoutMs), listen.drain(timeoutMs)]);
    },
    async close() {
      await Promise.all([live.close(), listen.close()]);
      await app.close();
    },
  };
}

function singleKey(apiKey: string | undefined): AccountGate {
  if (!apiKey) throw new RangeError('createSpeechService needs `accounts` or an `apiKey`');
  return new SingleKeyAccounts(apiKey);
}

/**
 * Runs one tiny synthesis, starts the media workers with their encoders and readies recognition, so the first
 * requests and the first live recognition socket find them ready.
 */
async function warmUp(engines: ServiceEngines): Promise<void> {
  const engine = engines.tts();
  await (engine as Partial<{ warmUp(): Promise<void> }>).warmUp?.();
  await Promise.all([engine.synthesize('Ready.', { voice: 'slt' }), MediaPool.shared().warmUp(), warmRecognition(engines)]);
}

/** A service whose recognition cannot start still serves synthesis: the first recognition request reports why. */
function warmRecognition(engines: ServiceEngines): Promise<void> {
  return warmListening(engines).catch(() => undefined);
}
