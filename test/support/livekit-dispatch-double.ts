import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createServer, type Server } from 'node:http';
import { Job, JobAssignment, Room, ServerMessage, WorkerMessage } from '@livekit/protocol';
import { TokenVerifier } from 'livekit-server-sdk';
import { WebSocketServer, type WebSocket } from 'ws';

type Outgoing = NonNullable<NonNullable<ConstructorParameters<typeof ServerMessage>[0]>['message']>;
type Received = Exclude<WorkerMessage['message'], { case: undefined }>;
type ReceivedValue<K> = Extract<Received, { case: K }> extends { value: infer V } ? V : never;

/**
 * A stand-in for LiveKit server's agent dispatch endpoint, speaking `@livekit/protocol` binary frames on
 * `/agent`: it checks the worker's bearer token (agent grant, API secret), confirms registration and lets
 * the test offer, assign and terminate jobs and drop the socket.
 */
export class DispatchServerDouble {
  readonly apiKey = 'APIdouble';
  readonly apiSecret = 'double-secret-of-enough-length-0123456789';
  /** Every message workers sent, in order, across connections. */
  readonly received: Received[] = [];
  readonly connections: WebSocket[] = [];
  /** Authorization failures, as the server would answer them. */
  readonly refused: string[] = [];
  private server!: Server;
  private readonly held: Duplex[] = [];
  private wss!: WebSocketServer;
  private workers = 0;
  private waiters: Array<() => void> = [];

  static async start(): Promise<DispatchServerDouble> {
    const double = new DispatchServerDouble();
    await double.listen();
    return double;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async listen(): Promise<void> {
    this.wss = new WebSocketServer({ noServer: true });
    this.server = createServer((request, res) => {
      // Room signalling is not part of this double: a room join hangs, as against an unreachable room server.
      if (!request.url?.startsWith('/rtc')) res.writeHead(404).end();
    });
    this.server.on('upgrade', (request, socket, head) => {
      if (request.url?.startsWith('/rtc')) {
        this.held.push(socket);
        return;
      }
      void this.authorize(request.url ?? '', request.headers.authorization).then((problem) => {
        if (problem) {
          this.refused.push(problem);
          socket.end(`HTTP/1.1 401 Unauthorized\r\ncontent-length: ${problem.length}\r\n\r\n${problem}`);
          return;
        }
        this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws));
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
  }

  private async authorize(path: string, header: string | undefined): Promise<string | undefined> {
    if (!path.startsWith('/agent')) return `no such endpoint ${path}`;
    if (!header?.startsWith('Bearer ')) return 'missing bearer token';
    try {
      const grants = await new TokenVerifier(this.apiKey, this.apiSecret).verify(header.slice(7));
      return grants.video?.agent ? undefined : 'token lacks the agent grant';
    } catch (error) {
      return `invalid token: ${(error as Error).message}`;
    }
  }

  private accept(ws: WebSocket): void {
    this.connections.push(ws);
    ws.on('message', (data: Buffer) => {
      const message = WorkerMessage.fromBinary(new Uint8Array(data)).message;
      if (!message.case) return;
      this.received.push(message);
      if (message.case === 'register') {
        this.workers += 1;
        this.send({ case: 'register', value: { workerId: `W_${this.workers}`, serverInfo: { version: '1.9.0-double' } } }, ws);
      }
      if (message.case === 'ping') this.send({ case: 'pong', value: { lastTimestamp: message.value.timestamp, timestamp: BigInt(Date.now()) } }, ws);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** The latest connection, where the server sends unless told otherwise. */
  get current(): WebSocket {
    return this.connections.at(-1)!;
  }

  send(message: Outgoing, ws: WebSocket = this.current): void {
    ws.send(new ServerMessage({ message }).toBinary());
  }

  /** Asks the worker to take a job in `room`, as the server does for a new room or an explicit dispatch. */
  offer(jobId: string, room: string, agentName = ''): void {
    this.send({ case: 'availability', value: { job: this.job(jobId, room, agentName) } });
  }

  assign(jobId: string, room: string, token = `join-token-${jobId}`): void {
    this.send({ case: 'assignment', value: new JobAssignment({ job: this.job(jobId, room), token }) });
  }

  terminate(jobId: string): void {
    this.send({ case: 'termination', value: { jobId } });
  }

  private job(id: string, room: string, agentName = ''): Job {
    return new Job({ id, room: new Room({ name: room, sid: `RM_${room}` }), agentName });
  }

  /** Messages of one kind received so far. */
  of<K extends Received['case']>(kind: K): ReceivedValue<K>[] {
    return this.received.filter((m) => m.case === kind).map((m) => m.value as ReceivedValue<K>);
  }

  /** Waits until `check` holds over the received messages (re-checked on each new message). */
  async until<T>(check: () => T | undefined | false, timeoutMs = 5000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value) return value;
      if (Date.now() > deadline) throw new Error('dispatch double: condition not met in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    for (const ws of this.connections) ws.terminate();
    for (const socket of this.held) socket.destroy();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
