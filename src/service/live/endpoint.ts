import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { bearerKey, unauthorizedMessage } from '../http/gate.js';
import { extractTraceContext, startServerSpan } from '../http/tracing.js';
import { modelForLive } from '../tts/models.js';
import { LiveTtsSession } from './session.js';
import { spanAttributes } from '../../tracing/index.js';

export interface LiveOptions {
  /** Paths of the realtime endpoint; the second adds word alignment to each audio event. */
  path: string;
  timestampPath: string;
  /** Interval of server pings, in ms. */
  pingIntervalMs: number;
  /** A client that answers no ping for this long is dropped, in ms (well above the 20 s some clients use). */
  pongTimeoutMs: number;
  /** Close the socket after `finish{reason:"stop"}`; when false the socket accepts a new `start`. */
  closeAfterFinish: boolean;
  /** Largest frame accepted, in bytes (a `start` may carry inline reference audio). */
  maxFrameBytes: number;
  /** On shutdown, how long clients get to answer the close handshake before they are dropped, in ms. */
  shutdownGraceMs: number;
}

export const defaults: LiveOptions = {
  path: '/v1/tts/live',
  timestampPath: '/v1/tts/live/with-timestamp',
  pingIntervalMs: 15_000,
  pongTimeoutMs: 60_000,
  closeAfterFinish: true,
  maxFrameBytes: 32 * 1024 * 1024,
  shutdownGraceMs: 1000,
};

function refuseUpgrade(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ status, message });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** The realtime TTS WebSocket: authenticates the upgrade (plain HTTP 401/402/429), then runs a LiveTtsSession. */
export class LiveEndpoint {
  private readonly server: WebSocketServer;
  private readonly sessions = new Set<LiveTtsSession>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly service: ServiceContext,
    private readonly options: LiveOptions,
  ) {
    this.server = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes, perMessageDeflate: false });
    app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(request, socket, head).catch((error: unknown) => {
        app.log.error({ err: error }, 'live upgrade failed');
        if (!socket.destroyed) refuseUpgrade(socket, 500, 'internal error; the server log has the details');
      });
    });
  }

  /** Ends every open session (finish with an error, then close) and stops accepting new ones. */
  async close(): Promise<void> {
    const sessions = [...this.sessions];
    for (const session of sessions) session.shutdown('the server is shutting down');
    const grace = new Promise<void>((resolve) => setTimeout(resolve, this.options.shutdownGraceMs).unref());
    await Promise.race([Promise.all(sessions.map((session) => session.closed)), grace]);
    for (const session of this.sessions) session.terminate();
    await Promise.all(sessions.map((session) => session.closed));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const started = performance.now();
    socket.on('error', () => socket.destroy());
    const path = (request.url ?? '/').split('?')[0]!;
    const log = (status: number, traceId?: string) =>
      this.app.log.info(
        { method: 'GET', url: request.url, status, latencyMs: Math.round((performance.now() - started) * 10) / 10, traceId, upgrade: 'websocket' },
        'request',
      );
    if (path !== this.options.path && path !== this.options.timestampPath) {
      refuseUpgrade(socket, 404, `no WebSocket endpoint at ${path}; use ${this.options.path}`);
      return log(404);
    }
    const parent = extractTraceContext(request.headers);
    const span = startServerSpan('tts.live', parent, { 'http.route': path });
    let release: (() => void) | undefined;
    try {
      const principal = await this.service.accounts.authenticate(bearerKey(request.headers.authorization));
      if (!principal) throw new ServiceError(401, unauthorizedMessage);
      await this.service.accounts.ensureCredit(principal);
      release = this.service.accounts.admit(principal, 'live-session');
      const model = modelForLive(request.headers.model);
      span.span.setAttribute(spanAttributes.ttsModel, model.id);
      let adopted = false;
      socket.once('close', () => {
        if (adopted) return;
        release?.();
        span.end(new Error('WebSocket handshake failed'));
      });
      this.server.handleUpgrade(request, socket, head, (ws: WebSocket) => {
        adopted = true;
        log(101, span.traceId);
        const session = new LiveTtsSession(ws, {
          id: randomUUID(),
          principal,
          model,
          withTimestamps: path === this.options.timestampPath,
          service: this.service,
          span,
          log: this.app.log.child({ liveSession: true, traceId: span.traceId }),
          options: this.options,
        });
        this.sessions.add(session);
        session.closed.finally(() => {
          this.sessions.delete(session);
          release?.();
        });
      });
    } catch (error) {
      release?.();
      span.end(error);
      if (error instanceof ServiceError) {
        const headers: Record<string, string> = error.retryAfterSeconds !== undefined ? { 'Retry-After': String(Math.ceil(error.retryAfterSeconds)) } : {};
        refuseUpgrade(socket, error.status, error.message, headers);
        return log(error.status, span.traceId);
      }
      throw error;
    }
  }
}
