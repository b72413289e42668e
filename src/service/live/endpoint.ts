import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { answerRawSocket } from '../http/connection-limits.js';
import { bearerKey, unauthorizedMessage } from '../http/gate.js';
import { extractTraceContext, startServerSpan } from '../http/tracing.js';
import { modelForLive } from '../tts/models.js';
import { LiveTtsSession } from './live-tts-session.js';
import type { LiveOptions } from './options.js';
import { spanAttributes } from '../../tracing/index.js';
import { countRefusal, watchLiveSessions } from '../../metrics/index.js';

/** The realtime TTS WebSocket: authenticates the upgrade (plain HTTP 401/402/429), then runs a LiveTtsSession. */
export class LiveEndpoint {
  private readonly server: WebSocketServer;
  private readonly sessions = new Set<LiveTtsSession>();
  private readonly keyCheck: NodeJS.Timeout;
  private readonly unwatch: () => void;
  private readonly unsubscribe: () => void;
  private draining = false;

  constructor(
    private readonly app: FastifyInstance,
    private readonly service: ServiceContext,
    private readonly options: LiveOptions,
    /** Upgrades another endpoint answers (this one then leaves them alone). */
    answeredElsewhere: (request: IncomingMessage) => boolean = () => false,
  ) {
    this.server = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes, perMessageDeflate: false });
    app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (answeredElsewhere(request)) return;
      this.upgrade(request, socket, head).catch((error: unknown) => {
        app.log.error({ err: error }, 'live upgrade failed');
        if (!socket.destroyed) answerRawSocket(socket, 500, 'internal error; the server log has the details');
      });
    });
    this.keyCheck = setInterval(() => void this.endRevokedSessions(), options.keyCheckIntervalMs).unref();
    this.unsubscribe = service.accounts.onChange?.(() => void this.endRevokedSessions()) ?? (() => {});
    this.unwatch = watchLiveSessions(() => this.sessions.size);
  }

  /**
   * Stops taking sessions (503) and lets the open ones finish the round they are in (they close after its
   * `finish`; idle ones close now); resolves when all are closed, or after `timeoutMs`.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    const sessions = [...this.sessions];
    for (const session of sessions) session.drain();
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([Promise.all(sessions.map((session) => session.closed)), deadline]);
  }

  /** Ends the sessions whose key was revoked or expired since they opened. */
  private async endRevokedSessions(): Promise<void> {
    const verdicts = new Map<string, Promise<boolean>>();
    for (const session of this.sessions) {
      const { principal } = session;
      if (!verdicts.has(principal.keyId)) verdicts.set(principal.keyId, this.service.accounts.isActive(principal).catch(() => true));
      if (!(await verdicts.get(principal.keyId))) session.revoke();
    }
  }

  /** Ends every open session (finish with an error, then close) and stops accepting new ones. */
  async close(): Promise<void> {
    clearInterval(this.keyCheck);
    this.unwatch();
    this.unsubscribe();
    this.draining = true;
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
      answerRawSocket(socket, 404, `no WebSocket endpoint at ${path}; use ${this.options.path}`);
      return log(404);
    }
    const parent = extractTraceContext(request.headers);
    const span = startServerSpan('tts.live', parent, { 'http.route': path });
    let release: (() => void) | undefined;
    try {
      const principal = await this.service.accounts.authenticate(bearerKey(request.headers.authorization));
      if (!principal) throw new ServiceError(401, unauthorizedMessage);
      if (this.draining) throw new ServiceError(503, 'the service is shutting down; retry on another instance', 5);
      await this.service.accounts.ensureCredit(principal);
      if (this.sessions.size >= this.options.maxSessions) {
        throw new ServiceError(503, `the server is at its limit of ${this.options.maxSessions} live sessions; retry shortly`, 1);
      }
      release = await this.service.accounts.admit(principal, 'live-session');
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
        countRefusal(error.status);
        answerRawSocket(socket, error.status, error.message, headers);
        return log(error.status, span.traceId);
      }
      throw error;
    }
  }
}
