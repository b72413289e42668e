import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { SileroVad } from '../../engines/index.js';
import { ServiceError } from '../accounts.js';
import type { ServiceContext } from '../context.js';
import { statusOf } from '../http/errors.js';
import { extractTraceContext, startServerSpan } from '../http/tracing.js';
import { countRefusal, watchLiveSessions } from '../../metrics/index.js';
import { deepgramErrorBody, headerSafe } from './errors.js';
import { ListenSession } from './listen-session.js';
import type { ListenOptions } from './options.js';
import { readListenQuery } from './query.js';
import { listenKey, listenSubprotocol } from './key.js';

const unauthorized = 'Invalid credentials: send Authorization: Token <API key> (or Bearer), or the subprotocols token, <API key>';

/** Answers a WebSocket upgrade with a plain HTTP error in Deepgram's shape. */
function refuse(socket: Duplex, status: number, message: string, requestId: string, headers: Record<string, string> = {}): void {
  if (socket.destroyed || !socket.writable) return void socket.destroy();
  const body = JSON.stringify(deepgramErrorBody(status, message, requestId));
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    `dg-request-id: ${requestId}`,
    `dg-error: ${headerSafe(message)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
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
  private readonly server: WebSocketServer;
  private readonly sessions = new Set<ListenSession>();
  private readonly keyCheck: NodeJS.Timeout;
  private readonly unwatch: () => void;
  private readonly unsubscribe: () => void;
  private draining = false;

  constructor(
    private readonly app: FastifyInstance,
    private readonly service: ServiceContext,
    private readonly options: ListenOptions,
  ) {
    this.server = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxFrameBytes,
      perMessageDeflate: false,
      handleProtocols: (protocols) => listenSubprotocol(protocols) ?? false,
    });
    app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!this.handles(request)) return;
      this.upgrade(request, socket, head).catch((error: unknown) => {
        app.log.error({ err: error }, 'listen upgrade failed');
        if (!socket.destroyed) refuse(socket, 500, 'internal error; the server log has the details', randomUUID());
      });
    });
    this.keyCheck = setInterval(() => void this.endRevokedSessions(), options.keyCheckIntervalMs).unref();
    this.unsubscribe = service.accounts.onChange?.(() => void this.endRevokedSessions()) ?? (() => {});
    this.unwatch = watchLiveSessions(() => this.sessions.size);
  }

  /** True for upgrades this endpoint answers. */
  handles(request: IncomingMessage): boolean {
    return (request.url ?? '/').split('?')[0] === this.options.path;
  }

  /** Stops taking sockets (503); open ones keep running until they close or `timeoutMs` passes. */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([Promise.all([...this.sessions].map((session) => session.closed)), deadline]);
  }

  async close(): Promise<void> {
    clearInterval(this.keyCheck);
    this.unwatch();
    this.unsubscribe();
    this.draining = true;
    const sessions = [...this.sessions];
    for (const session of sessions) session.shutdown('the server is shutting down');
    const grace = new Promise<void>((resolve) => setTimeout(resolve, 1000).unref());
    await Promise.race([Promise.all(sessions.map((session) => session.closed)), grace]);
    for (const session of this.sessions) session.terminate();
    await Promise.all(sessions.map((session) => session.closed));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async endRevokedSessions(): Promise<void> {
    const verdicts = new Map<string, Promise<boolean>>();
    for (const session of this.sessions) {
      const { principal } = session;
      if (!verdicts.has(principal.keyId)) verdicts.set(principal.keyId, this.service.accounts.isActive(principal).catch(() => true));
      if (!(await verdicts.get(principal.keyId))) session.revoke();
    }
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const started = performance.now();
    const requestId = randomUUID();
    socket.on('error', () => socket.destroy());
    const log = (status: number, traceId?: string) =>
      this.app.log.info(
        { method: 'GET', url: request.url, status, latencyMs: Math.round((performance.now() - started) * 10) / 10, traceId, upgrade: 'websocket' },
        'request',
      );
    const span = startServerSpan('asr.listen', extractTraceContext(request.headers), { 'http.route': this.options.path });
    let release: (() => void) | undefined;
    try {
      const principal = await this.service.accounts.authenticate(listenKey(request.headers));
      if (!principal) throw new ServiceError(401, unauthorized);
      const settings = readListenQuery(new URL(request.url ?? '/', 'http://localhost').searchParams);
      if (this.draining) throw new ServiceError(503, 'the service is shutting down; retry on another instance', 5);
      await this.service.accounts.ensureCredit(principal);
      if (this.sessions.size >= this.options.maxSessions) {
        throw new ServiceError(503, `the server is at its limit of ${this.options.maxSessions} live recognition sockets; retry shortly`, 1);
      }
      release = await this.service.accounts.admit(principal, 'live-session');
      const reservation = await this.service.accounts.reserve(principal, { kind: 'asr', seconds: 0 }, requestId);
      const telephoneBand = settings.sampleRate !== undefined && settings.sampleRate <= 8000;
      const recognizer = openRecognizer(this.service, settings.language, telephoneBand);
      const vad = new SileroVad();
      if (settings.hints) await recognizer.expect?.(settings.hints);
      let adopted = false;
      socket.once('close', () => {
        if (adopted) return;
        release?.();
        recognizer.close();
        vad.release();
        void reservation.settle(null).catch(() => undefined);
        span.end(new Error('WebSocket handshake failed'));
      });
      this.server.handleUpgrade(request, socket, head, (ws: WebSocket) => {
        adopted = true;
        log(101, span.traceId);
        const session = new ListenSession(ws, {
          id: requestId,
          principal,
          settings,
          reservation,
          recognizer,
          vad,
          service: this.service,
          span,
          log: this.app.log.child({ listenSession: true, traceId: span.traceId }),
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
        refuse(socket, error.status, error.message, requestId, headers);
        return log(error.status, span.traceId);
      }
      throw error;
    }
  }
}
