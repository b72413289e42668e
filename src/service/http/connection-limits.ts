import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { countTimeout } from '../../metrics/index.js';

/** How long a connection may take or sit idle, and how many may be open; shared by `shoal serve` and `shoal agent`. */
export interface ConnectionLimits {
  /** A request's headers must all arrive within this, in ms; else 408 and the connection closes. */
  headersTimeoutMs: number;
  /** A request body that sends nothing for this long ends with 408, in ms. */
  bodyStallTimeoutMs: number;
  /** An idle keep-alive connection is closed after this, in ms. */
  keepAliveTimeoutMs: number;
  /** Open TCP connections at once (HTTP and WebSocket); further ones are closed on arrival. */
  maxConnections: number;
}

export const defaults: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  bodyStallTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 2_000,
};

/** Options for `http.createServer` (fastify's `http` option): headers deadline checked every second. */
export function httpServerOptions(limits: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: 0,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
  };
}

/** Writes a complete `{status, message}` JSON response on a raw socket and closes it (errors before any route). */
export function answerRawSocket(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  writeRawJson(socket, status, { status, message }, headers);
}

/** Writes a complete JSON response on a raw socket and closes it. */
export function writeRawJson(socket: Duplex, status: number, content: unknown, headers: Record<string, string> = {}): void {
  if (socket.destroyed || !socket.writable) return void socket.destroy();
  const body = JSON.stringify(content);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * Applies the limits to a listening-to-be server: the connection cap, keep-alive idle time, and the body stall
 * timer (a socket with no traffic for `bodyStallTimeoutMs`: 408 when a body was still coming, else closed;
 * a response still being produced keeps its connection). Upgraded sockets are left to their WebSocket layer.
 */
export function applyConnectionLimits(server: Server, limits: ConnectionLimits): void {
  server.maxConnections = limits.maxConnections;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.headersTimeout = limits.headersTimeoutMs;
  const exchanges = new WeakMap<Socket, { request: IncomingMessage; response: ServerResponse }>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    exchanges.set(socket, { request, response });
  });
  server.on('upgrade', (_request: IncomingMessage, socket: Socket) => socket.setTimeout(0));
  server.setTimeout(limits.bodyStallTimeoutMs, (socket: Socket) => {
    const exchange = exchanges.get(socket);
    // The first request's headers are still coming: the headers timeout deals with it.
    if (!exchange) return;
    const { request, response } = exchange;
    if (!request.complete && !response.headersSent) {
      const message = `request body stalled: nothing arrived for ${seconds(limits.bodyStallTimeoutMs)}; send the body without pauses`;
      const body = JSON.stringify({ status: 408, message });
      countTimeout('body-stall');
      response.writeHead(408, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
      response.end(body, () => socket.destroy());
      return;
    }
    // Idle after a response (keep-alive), or a body stalled after the answer went out: close.
    if (!request.complete || response.writableEnded) return void socket.destroy();
    // The response is still being produced (a long synthesis); it paces itself.
  });
}

const clientErrors: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: 'request headers are too large (at most 16 KB); send fewer or shorter headers' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'request headers did not arrive in time; send the whole request promptly' },
  HPE_URI_TOO_LONG: { status: 414, message: 'request URI is too long; send long values in the body' },
};

/**
 * Answers a request Node's parser refused before any route (431, 408, malformed HTTP) in the service's
 * `{status, message}` shape; fastify's `clientErrorHandler`.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return void socket.destroy();
  const known = error.code ? clientErrors[error.code] : undefined;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') countTimeout('headers');
  answerRawSocket(socket, known?.status ?? 400, known?.message ?? `malformed HTTP request (${error.code ?? error.message}); send a valid HTTP/1.1 request`);
}
