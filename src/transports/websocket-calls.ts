import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import type { RunningCall } from './call-request.js';

/** What a call's transport must offer so that its call can be ended from outside. */
export interface EndableTransport {
  end(reason: string): void;
}

export interface WebSocketCallsOptions {
  /** URL path whose upgrades are taken. */
  path: string;
  /** A larger message closes its socket (1009). */
  maxPayloadBytes: number;
  /** Gets each accepted socket with the query of its upgrade URL and the network socket under it. */
  accept(ws: WebSocket, query: URLSearchParams, network: Duplex): void;
}

/**
 * The sockets accepted on one WebSocket path and the calls running on them. A call is tracked from the moment
 * its transport exists; when its socket closes, the transport is ended and the session, if it got one, stopped.
 */
export class WebSocketCalls<T extends EndableTransport> {
  readonly path: string;
  private readonly server: WebSocketServer;
  private readonly accept: WebSocketCallsOptions['accept'];
  private readonly calls = new Map<string, { transport: T; session?: RunningCall }>();
  private readonly sockets = new Set<WebSocket>();

  constructor(options: WebSocketCallsOptions) {
    this.path = options.path;
    this.accept = options.accept;
    this.server = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes });
  }

  /** Takes an HTTP upgrade if it is for this path; returns false otherwise. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== this.path) return false;
    this.server.handleUpgrade(request, socket, head, (ws) => this.accept(ws, url.searchParams, socket));
    return true;
  }

  /** Tracks an accepted socket and returns a fresh id for its call; when it closes, `onClose` runs, then its call ends. */
  adopt(ws: WebSocket, onClose: () => void): string {
    this.sockets.add(ws);
    const callId = randomUUID();
    ws.on('close', () => {
      onClose();
      this.sockets.delete(ws);
      this.end(callId, 'socket closed');
    });
    return callId;
  }

  /** Tracks a call as soon as its transport exists, before its session has started. */
  track(callId: string, transport: T): void {
    this.calls.set(callId, { transport });
  }

  /** Gives a tracked call its running session; a call that has already ended gets the session stopped instead. */
  attachSession(callId: string, session: RunningCall): void {
    const call = this.calls.get(callId);
    if (call) this.calls.set(callId, { transport: call.transport, session });
    else session.stop();
  }

  /** Stops tracking a call: its transport ends with `reason` and its session, if any, stops. */
  end(callId: string, reason: string): void {
    const call = this.calls.get(callId);
    this.calls.delete(callId);
    call?.transport.end(reason);
    call?.session?.stop();
  }

  /** Number of tracked calls (starting or running). */
  activeCalls(): number {
    return this.calls.size;
  }

  /** Number of open sockets, with or without a call. */
  openSockets(): number {
    return this.sockets.size;
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
    this.server.close();
  }
}

/** An endpoint whose calls arrive on WebSockets: it takes its path's upgrades, counts its calls and closes them. */
export abstract class WebSocketCallEndpoint<T extends EndableTransport> {
  protected abstract readonly calls: WebSocketCalls<T>;

  /** Takes an HTTP upgrade if it is for this endpoint's path; returns false otherwise. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    return this.calls.handleUpgrade(request, socket, head);
  }

  /** Number of calls starting or running. */
  activeCalls(): number {
    return this.calls.activeCalls();
  }

  /** Number of open sockets, with or without a call. */
  openSockets(): number {
    return this.calls.openSockets();
  }

  close(): void {
    this.calls.close();
  }
}
