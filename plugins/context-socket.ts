import type WebSocket from 'ws';
import { ProviderError } from '../src/agent/index.js';

/** What a reply's context hears on a shared socket. */
export interface ContextListener {
  message(message: Record<string, unknown>): void;
  fail(error: ProviderError): void;
}

export interface ContextSocketOptions {
  provider: string;
  /** Opens the socket (rejecting with a `ProviderError`), under the trace context of the reply that needs it. */
  open(): Promise<WebSocket>;
  /** The context a server message belongs to; undefined: it concerns every context on the socket. */
  contextOf(message: Record<string, unknown>): string | undefined;
  /** The error for a socket closed while replies were using it (`dropped`, or what the close code says). */
  closed(code: number, reason: string): ProviderError;
  /** Close the socket after this long without a context, ms. */
  idleCloseMs: number;
}

/**
 * One provider socket carrying many replies, each in its own context (Cartesia's `context_id`, ElevenLabs'
 * multi-stream contexts): opened when the first reply needs it, shared while it stays open, opened again after it
 * closes. A socket that closes under live contexts fails each of them with the error failover needs.
 */
export class ContextSocket {
  private socket: WebSocket | undefined;
  private opening: Promise<WebSocket> | undefined;
  private readonly listeners = new Map<string, ContextListener>();
  /** The socket each context's messages go on, once it is open. */
  private readonly bound = new Map<string, WebSocket>();
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: ContextSocketOptions) {}

  /** How many replies use the socket now. */
  get contexts(): number {
    return this.listeners.size;
  }

  /** Opens the socket now when it is not open (a reply is coming). */
  warm(): void {
    this.connect().catch(() => undefined);
  }

  /** Listens for `contextId`'s messages; resolves with a sender once the socket is open. */
  async attach(contextId: string, listener: ContextListener): Promise<(message: Record<string, unknown>) => void> {
    this.listeners.set(contextId, listener);
    this.stopIdleTimer();
    try {
      const socket = await this.connect();
      if (this.listeners.has(contextId)) this.bound.set(contextId, socket);
      return (message) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      };
    } catch (error) {
      this.listeners.delete(contextId);
      throw error;
    }
  }

  detach(contextId: string): void {
    this.listeners.delete(contextId);
    this.bound.delete(contextId);
    if (this.listeners.size === 0 && this.socket) {
      this.stopIdleTimer();
      this.idleTimer = setTimeout(() => this.close(), this.options.idleCloseMs);
      this.idleTimer.unref();
    }
  }

  close(): void {
    this.stopIdleTimer();
    const socket = this.socket;
    this.socket = undefined;
    if (socket) {
      socket.removeAllListeners('close');
      socket.on('error', () => undefined);
      socket.close(1000);
    }
  }

  private connect(): Promise<WebSocket> {
    if (this.socket && this.socket.readyState === this.socket.OPEN) return Promise.resolve(this.socket);
    this.opening ??= this.options.open().then(
      (socket) => {
        this.opening = undefined;
        this.socket = socket;
        socket.on('message', (data, isBinary) => {
          if (!isBinary) this.route(socket, data.toString());
        });
        socket.on('error', () => undefined);
        socket.on('close', (code, reason) => this.dropped(socket, code, reason.toString()));
        return socket;
      },
      (error: unknown) => {
        this.opening = undefined;
        throw error;
      },
    );
    return this.opening;
  }

  private route(socket: WebSocket, text: string): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    const contextId = this.options.contextOf(message);
    if (contextId !== undefined) {
      this.listeners.get(contextId)?.message(message);
      return;
    }
    for (const [contextId, on] of [...this.bound]) if (on === socket) this.listeners.get(contextId)?.message(message);
  }

  private dropped(socket: WebSocket, code: number, reason: string): void {
    if (this.socket === socket) this.socket = undefined;
    // Contexts still waiting for a socket wait for the next one; those on this socket are cut off.
    const cut = [...this.bound].filter(([, on]) => on === socket).map(([contextId]) => contextId);
    if (cut.length === 0) return;
    const error = this.options.closed(code, reason);
    for (const contextId of cut) {
      const listener = this.listeners.get(contextId);
      this.listeners.delete(contextId);
      this.bound.delete(contextId);
      listener?.fail(error);
    }
  }

  private stopIdleTimer(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}

/** The error for a socket that closed mid-reply with a code that says nothing more. */
export function droppedSocket(provider: string, code: number, reason: string): ProviderError {
  return new ProviderError(provider, 'dropped', `the socket closed mid-reply (code ${code}${reason ? `: ${reason}` : ''})`, { status: code });
}
