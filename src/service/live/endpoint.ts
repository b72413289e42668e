import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { ServiceContext } from '../context.js';
import { answerRawSocket } from '../http/connection-limits.js';
import { bearerKey, unauthorizedMessage } from '../http/gate.js';
import { SocketEndpoint } from '../http/socket-endpoint.js';
import { modelForLive } from '../tts/models.js';
import { LiveTtsSession } from './live-tts-session.js';
import type { LiveOptions } from './options.js';
import { spanAttributes } from '../../tracing/index.js';

/** The realtime TTS WebSocket: authenticates the upgrade (plain HTTP 401/402/429), then runs a LiveTtsSession. */
export class LiveEndpoint {
  private readonly sockets: SocketEndpoint<LiveTtsSession>;

  constructor(
    app: FastifyInstance,
    service: ServiceContext,
    private readonly options: LiveOptions,
    /** Upgrades another endpoint answers (this one then leaves them alone). */
    answeredElsewhere: (request: IncomingMessage) => boolean = () => false,
  ) {
    this.sockets = new SocketEndpoint(app, service, {
      name: 'live',
      spanName: 'tts.live',
      paths: [options.path, options.timestampPath],
      answers: (request) => !answeredElsewhere(request),
      maxFrameBytes: options.maxFrameBytes,
      maxSessions: options.maxSessions,
      sessionsNoun: 'live sessions',
      // Tells clients they may ask for `utterance_end` on flushes (the hosted service does not send it).
      upgradeHeaders: { 'Shoal-Utterance-End': 'supported' },
      keyCheckIntervalMs: options.keyCheckIntervalMs,
      key: (headers) => bearerKey(headers.authorization),
      unauthorized: unauthorizedMessage,
      refuse: (socket, status, message, _requestId, headers) => answerRawSocket(socket, status, message, headers),
      read: () => undefined,
      admitted: async ({ request, path, requestId, span }, principal) => {
        const model = modelForLive(request.headers.model);
        span.span.setAttribute(spanAttributes.ttsModel, model.id);
        return {
          start: (ws) =>
            new LiveTtsSession(ws, {
              id: requestId,
              principal,
              model,
              withTimestamps: path === options.timestampPath,
              service,
              span,
              log: app.log.child({ liveSession: true, traceId: span.traceId }),
              options,
            }),
        };
      },
    });
  }

  /**
   * Stops taking sessions (503) and lets the open ones finish the round they are in (they close after its
   * `finish`; idle ones close now); resolves when all are closed, or after `timeoutMs`.
   */
  drain(timeoutMs: number): Promise<void> {
    return this.sockets.drain(timeoutMs);
  }

  /** Ends every open session (finish with an error, then close) and stops accepting new ones. */
  close(): Promise<void> {
    return this.sockets.close(this.options.shutdownGraceMs);
  }
}
