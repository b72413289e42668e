import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { decode, encode } from '@msgpack/msgpack';
import { WebSocketServer, type WebSocket } from 'ws';

/** A recorded HTTP request of a fake server. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type FakeHandler = (request: SeenRequest, response: ServerResponse, index: number) => unknown;

export interface FakeServer {
  url: string;
  requests: SeenRequest[];
  /** Live sockets accepted so far. */
  sockets: WebSocket[];
  close(): Promise<void>;
}

export interface FakeServerOptions {
  http?: FakeHandler;
  /** Decides a live upgrade: a status to refuse it with, or a function run on the accepted socket. */
  live?: (socket: WebSocket, request: IncomingMessage, index: number) => void;
  refuseUpgrade?: (request: IncomingMessage, index: number) => { status: number; body: string; headers?: Record<string, string> } | null;
}

/** A local HTTP + WebSocket server on 127.0.0.1:0 whose every answer the test decides (the fault injector). */
export async function startFakeServer(options: FakeServerOptions): Promise<FakeServer> {
  const requests: SeenRequest[] = [];
  const sockets: WebSocket[] = [];
  const connections = new Set<Socket>();
  const wss = new WebSocketServer({ noServer: true });
  let upgrades = 0;
  const server: Server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts) };
    requests.push(seen);
    try {
      await options.http?.(seen, res, requests.length - 1);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  server.on('connection', (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
  });
  server.on('upgrade', (req, socket, head) => {
    const index = upgrades++;
    const refusal = options.refuseUpgrade?.(req, index);
    if (refusal) {
      const headerLines = Object.entries({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(refusal.body)), ...refusal.headers })
        .map(([key, value]) => `${key}: ${value}\r\n`)
        .join('');
      socket.end(`HTTP/1.1 ${refusal.status} Refused\r\n${headerLines}\r\n${refusal.body}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.push(ws);
      options.live?.(ws, req, index);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sockets,
    async close() {
      for (const ws of wss.clients) ws.terminate();
      for (const socket of connections) socket.destroy();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export function liveFrame(event: Record<string, unknown>): Buffer {
  return Buffer.from(encode(event));
}

export function readLiveFrame(data: unknown): Record<string, unknown> {
  return decode(data as Buffer) as Record<string, unknown>;
}

/** Deterministic fake "audio" of a text: its UTF-8 bytes, so tests can read back what was spoken. */
export function fakeAudioOf(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
