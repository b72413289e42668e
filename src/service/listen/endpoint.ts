import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { SileroVad } from '../../engines/index.js';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { writeRawJson } from '../http/connection-limits.js';
import { statusOf } from '../http/errors.js';
import { SocketEndpoint } from '../http/socket-endpoint.js';
import { deepgramErrorBody, headerSafe } from './errors.js';
import { ListenSession } from './listen-session.js';
import type { ListenOptions } from './options.js';
import { readListenQuery, type ListenSettings } from './query.js';
import { listenKey, listenSubprotocol } from './key.js';

const unauthorized = 'Invalid credentials: send Authorization: Token <API key> (or Bearer), or the subprotocols token, <API key>';

/** Answers a WebSocket upgrade with a plain HTTP error in Deepgram's shape. */
function refuse(socket: Duplex, status: number, message: string, requestId: string, headers: Record<string, string> = {}): void {
  const body = deepgramErrorBody(status, message, requestId);
  writeRawJson(socket, status, body, { 'dg-request-id': requestId, 'dg-error': headerSafe(message), ...headers });
}

/** One recognizer for the socket; an engine's own 4xx (an unsupported language) becomes a ServiceError. */
function openRecognizer(service: ServiceContext, language: string, telephoneBand: boolean) {
  try {
    return service.engines.asr().createRecognizer({ language, telephoneBand });
  } catch (error) {
    const status = statusOf(error);
    if (status < 500) throw new ServiceError(status, (error as Error).message);
    throw error;
  }
}

/**
 * The Deepgram-compatible live recognition WebSocket (`/v1/listen`): authenticates the upgrade (plain HTTP
 * 400/401/402/429/503 in Deepgram's error shape), then runs a ListenSession with its own recognizer.
 */
export class ListenEndpoint {
  private readonly sockets: SocketEndpoint<ListenSession, ListenSettings>;

  constructor(
    app: FastifyInstance,
    service: ServiceContext,
    private readonly options: ListenOptions,
  ) {
    this.sockets = new SocketEndpoint(app, service, {
      name: 'listen',
      spanName: 'asr.listen',
      paths: [options.path],
      answers: (request) => this.handles(request),
      maxFrameBytes: options.maxFrameBytes,
      maxSessions: options.maxSessions,
      sessionsNoun: 'live recognition sockets',
      keyCheckIntervalMs: options.keyCheckIntervalMs,
      handleProtocols: (protocols) => listenSubprotocol(protocols) ?? false,
      key: listenKey,
      unauthorized,
      refuse,
      read: ({ request }) => readListenQuery(new URL(request.url ?? '/', 'http://localhost').searchParams),
      admitted: async ({ requestId, span }, principal, settings) => {
        const reservation = await service.accounts.reserve(principal, { kind: 'asr', seconds: 0 }, requestId);
        const telephoneBand = settings.sampleRate !== undefined && settings.sampleRate <= 8000;
        const recognizer = openRecognizer(service, settings.language, telephoneBand);
        const vad = new SileroVad();
        if (settings.hints) await recognizer.expect?.(settings.hints);
        return {
          start: (ws) =>
            new ListenSession(ws, {
              id: requestId,
              principal,
              settings,
              reservation,
              recognizer,
              vad,
              service,
              span,
              log: app.log.child({ listenSession: true, traceId: span.traceId }),
              options,
            }),
          abandon: () => {
            recognizer.close();
            vad.release();
            void reservation.settle(null).catch(() => undefined);
          },
        };
      },
    });
  }

  /** True for upgrades this endpoint answers. */
  handles(request: IncomingMessage): boolean {
    return (request.url ?? '/').split('?')[0] === this.options.path;
  }

  /** Stops taking sockets (503); open ones keep running until they close or `timeoutMs` passes. */
  drain(timeoutMs: number): Promise<void> {
    return this.sockets.drain(timeoutMs);
  }

  close(): Promise<void> {
    return this.sockets.close(1000);
  }
}
