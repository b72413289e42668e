import { ServerMessage, WorkerMessage } from '@livekit/protocol';
import { AccessToken } from 'livekit-server-sdk';
import { Observable, Subject } from 'rxjs';
import WebSocket, { type RawData } from 'ws';

export interface DispatchCredentials {
  /** LiveKit server URL (`wss://…`, `https://…` or `http://localhost:7880`). */
  url: string;
  apiKey: string;
  apiSecret: string;
}

/** The socket to LiveKit's agent dispatch could not be opened (refused, bad credentials, wrong URL). */
export class DispatchConnectError extends Error {
  override readonly name = 'DispatchConnectError';
  constructor(
    readonly url: string,
    readonly reason: string,
    readonly status?: number,
  ) {
    super(`cannot reach LiveKit agent dispatch at ${url}: ${reason}`);
  }
}

/** `<LIVEKIT_URL>/agent` as a WebSocket URL: http(s) becomes ws(s), a path prefix is kept. */
export function dispatchUrl(url: string): string {
  const parsed = new URL(url);
  parsed.protocol = parsed.protocol.replace(/^http/, 'ws');
  if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
  parsed.pathname += 'agent';
  return parsed.toString();
}

/** A bearer token with the `agent` grant: what the server asks of a worker opening `/agent`. */
export async function workerToken(credentials: DispatchCredentials): Promise<string> {
  const token = new AccessToken(credentials.apiKey, credentials.apiSecret, { ttl: '10m' });
  token.addGrant({ agent: true });
  return token.toJwt();
}

/** A `WorkerMessage`'s oneof, as plain fields: `{ case: 'updateWorker', value: { load, status } }`. */
export type OutgoingMessage = NonNullable<NonNullable<ConstructorParameters<typeof WorkerMessage>[0]>['message']>;

/** One open WebSocket to the dispatch server: protobuf `WorkerMessage`s out, `ServerMessage`s in. */
export class DispatchSocket {
  /** Server messages in arrival order; completes when the socket closes. */
  readonly messages$: Observable<ServerMessage>;
  /** Resolves with the close code once the socket has closed, for whatever reason. */
  readonly closed: Promise<number>;
  private readonly messages = new Subject<ServerMessage>();

  private constructor(private readonly ws: WebSocket) {
    this.messages$ = this.messages.asObservable();
    this.closed = new Promise((resolve) => {
      ws.on('close', (code) => {
        this.messages.complete();
        resolve(code);
      });
    });
    ws.on('message', (data: RawData, isBinary) => {
      if (!isBinary) return; // the protocol is binary protobuf only
      try {
        this.messages.next(ServerMessage.fromBinary(toBytes(data)));
      } catch {
        ws.close(1007, 'undecodable server message');
      }
    });
    ws.on('error', () => {
      // 'close' follows every error and ends the connection; the worker reconnects from there.
    });
  }

  static async open(credentials: DispatchCredentials, connectTimeoutMs: number): Promise<DispatchSocket> {
    const url = dispatchUrl(credentials.url);
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${await workerToken(credentials)}` }, handshakeTimeout: connectTimeoutMs });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_request, response) => {
        reject(new DispatchConnectError(url, `HTTP ${response.statusCode}`, response.statusCode));
        ws.terminate();
      });
      ws.once('error', (error) => reject(new DispatchConnectError(url, error.message)));
    });
    return new DispatchSocket(ws);
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(message: OutgoingMessage): void {
    if (this.isOpen) this.ws.send(new WorkerMessage({ message }).toBinary(), { binary: true });
  }

  close(code = 1000, reason = 'worker closing'): void {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.close(code, reason);
    // A server that never completes the closing handshake must not keep the worker waiting.
    setTimeout(() => this.ws.terminate(), 1000).unref();
  }
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return new Uint8Array(Buffer.concat(data));
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
