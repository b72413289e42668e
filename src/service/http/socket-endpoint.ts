import type { FastifyInstance } from 'fastify';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { ServiceError, type Principal } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { extractTraceContext, startServerSpan, type ServerSpan } from './tracing.js';
import { countRefusal, watchLiveSessions } from '../../metrics/index.js';

/** A session on an accepted WebSocket, as the endpoint that opened it tracks it. */
export interface SocketSession {
  readonly principal: Principal;
  readonly closed: Promise<void>;
  /** Ends the session because its key was revoked or has expired. */
  revoke(): void;
  /** Ends the session from the server side (shutdown). */
  shutdown(why: string): void;
  terminate(): void;
  /** Lets the session finish what it is doing, then close (a drain). */
  drain?(): void;
}

/** One upgrade, authenticated and admitted: what the endpoint made for its session. */
export interface AdmittedUpgrade<S> {
  /** Starts the session on the accepted socket. */
  start(ws: WebSocket): S;
  /** Frees what was made for the session when the handshake fails before it starts. */
  abandon?(): void;
}

/** The upgrade, as the endpoint's own steps see it. */
export interface UpgradeRequest {
  request: IncomingMessage;
  path: string;
  requestId: string;
  span: ServerSpan;
}

/** What tells one WebSocket endpoint from another; the steps between are `SocketEndpoint`'s. */
export interface SocketEndpointSpec<S extends SocketSession, Settings> {
  /** Names the endpoint in the log (`<name> upgrade failed`) and its server span. */
  name: string;
  spanName: string;
  /** Paths served; an answered upgrade to another path is refused with 404. */
  paths: readonly string[];
  /** True for upgrades this endpoint answers (the others are left to other listeners). */
  answers(request: IncomingMessage): boolean;
  maxFrameBytes: number;
  maxSessions: number;
  /** Ends this many sessions at once: `the server is at its limit of N <sessionsNoun>`. */
  sessionsNoun: string;
  keyCheckIntervalMs: number;
  handleProtocols?: (protocols: Set<string>) => string | false;
  /** Headers added to every accepted upgrade's response. */
  upgradeHeaders?: Readonly<Record<string, string>>;
  key(headers: IncomingHttpHeaders): string | undefined;
  unauthorized: string;
  /** Writes a plain HTTP refusal on the raw socket and closes it. */
  refuse(socket: Duplex, status: number, message: string, requestId: string, headers?: Record<string, string>): void;
  /** Reads the request's settings once the key is known (a ServiceError refuses it). */
  read(upgrade: UpgradeRequest): Settings;
  /** Makes the session's parts once the principal is admitted (a ServiceError refuses it). */
  admitted(upgrade: UpgradeRequest, principal: Principal, settings: Settings): Promise<AdmittedUpgrade<S>>;
}

const retryAfter = (error: ServiceError): Record<string, string> =>
  error.retryAfterSeconds !== undefined ? { 'Retry-After': String(Math.ceil(error.retryAfterSeconds)) } : {};

/**
 * A WebSocket endpoint on the service's HTTP server: authenticates each upgrade (plain HTTP refusals), admits
 * it within the session limit and the key's concurrency, tracks its sessions, ends those whose key is revoked,
 * and drains and closes them.
 */
export class SocketEndpoint<S extends SocketSession, Settings = void> {
  private readonly server: WebSocketServer;
  private readonly sessions = new Set<S>();
  private readonly keyCheck: NodeJS.Timeout;
  private readonly unwatch: () => void;
  private readonly unsubscribe: () => void;
  private draining = false;

  constructor(
    private readonly app: FastifyInstance,
    private readonly service: ServiceContext,
    private readonly spec: SocketEndpointSpec<S, Settings>,
  ) {
    this.server = new WebSocketServer({
      noServer: true,
      maxPayload: spec.maxFrameBytes,
      perMessageDeflate: false,
      ...(spec.handleProtocols ? { handleProtocols: spec.handleProtocols } : {}),
    });
    const extraHeaders = Object.entries(spec.upgradeHeaders ?? {}).map(([name, value]) => `${name}: ${value}`);
    if (extraHeaders.length > 0) this.server.on('headers', (headers) => headers.push(...extraHeaders));
    app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!spec.answers(request)) return;
      this.upgrade(request, socket, head).catch((error: unknown) => {
        app.log.error({ err: error }, `${spec.name} upgrade failed`);
        if (!socket.destroyed) spec.refuse(socket, 500, 'internal error; the server log has the details', randomUUID());
      });
    });
    this.keyCheck = setInterval(() => void this.endRevokedSessions(), spec.keyCheckIntervalMs).unref();
    this.unsubscribe = service.accounts.onChange?.(() => void this.endRevokedSessions()) ?? (() => {});
    this.unwatch = watchLiveSessions(() => this.sessions.size);
  }

  /** Stops taking sessions (503) and drains the open ones; resolves when all are closed, or after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    const sessions = [...this.sessions];
    for (const session of sessions) session.drain?.();
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([Promise.all(sessions.map((session) => session.closed)), deadline]);
  }

  /** Shuts every open session down (terminating those still open after `graceMs`) and stops accepting new ones. */
  async close(graceMs: number): Promise<void> {
    clearInterval(this.keyCheck);
    this.unwatch();
    this.unsubscribe();
    this.draining = true;
    const sessions = [...this.sessions];
    for (const session of sessions) session.shutdown('the server is shutting down');
    const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([Promise.all(sessions.map((session) => session.closed)), grace]);
    for (const session of this.sessions) session.terminate();
    await Promise.all(sessions.map((session) => session.closed));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
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

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const { spec, service } = this;
    const started = performance.now();
    const requestId = randomUUID();
    socket.on('error', () => socket.destroy());
    const path = (request.url ?? '/').split('?')[0]!;
    const log = (status: number, traceId?: string) =>
      this.app.log.info(
        { method: 'GET', url: request.url, status, latencyMs: Math.round((performance.now() - started) * 10) / 10, traceId, upgrade: 'websocket' },
        'request',
      );
    if (!spec.paths.includes(path)) {
      spec.refuse(socket, 404, `no WebSocket endpoint at ${path}; use ${spec.paths[0]}`, requestId);
      return log(404);
    }
    const span = startServerSpan(spec.spanName, extractTraceContext(request.headers), { 'http.route': path });
    const upgrade: UpgradeRequest = { request, path, requestId, span };
    let release: (() => void) | undefined;
    try {
      const principal = await service.accounts.authenticate(spec.key(request.headers));
      if (!principal) throw new ServiceError(401, spec.unauthorized);
      const settings = spec.read(upgrade);
      if (this.draining) throw new ServiceError(503, 'the service is shutting down; retry on another instance', 5);
      await service.accounts.ensureCredit(principal);
      if (this.sessions.size >= spec.maxSessions) {
        throw new ServiceError(503, `the server is at its limit of ${spec.maxSessions} ${spec.sessionsNoun}; retry shortly`, 1);
      }
      release = await service.accounts.admit(principal, 'live-session');
      const admitted = await spec.admitted(upgrade, principal, settings);
      let adopted = false;
      socket.once('close', () => {
        if (adopted) return;
        release?.();
        admitted.abandon?.();
        span.end(new Error('WebSocket handshake failed'));
      });
      this.server.handleUpgrade(request, socket, head, (ws: WebSocket) => {
        adopted = true;
        log(101, span.traceId);
        const session = admitted.start(ws);
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
        countRefusal(error.status);
        spec.refuse(socket, error.status, error.message, requestId, retryAfter(error));
        return log(error.status, span.traceId);
      }
      throw error;
    }
  }
}
