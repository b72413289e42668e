/** A msgpack client of the live TTS WebSocket for tests: records every event and the close code. */
import { decode, encode } from '@msgpack/msgpack';
import WebSocket from 'ws';

export type ServerEvent = Record<string, unknown> & { event: string };

export interface LiveClient {
  ws: WebSocket;
  events: ServerEvent[];
  send(event: Record<string, unknown>): void;
  /** Resolves when an event matching `test` has arrived. */
  waitFor(test: (event: ServerEvent) => boolean): Promise<ServerEvent>;
  closed: Promise<{ code: number; reason: string }>;
}

export function connectLive(url: string, headers: Record<string, string>, options: WebSocket.ClientOptions = {}): Promise<LiveClient> {
  const ws = new WebSocket(url, { ...options, headers });
  const events: ServerEvent[] = [];
  const waiters: { test: (event: ServerEvent) => boolean; resolve: (event: ServerEvent) => void }[] = [];
  ws.on('message', (data, isBinary) => {
    if (!isBinary) throw new Error('the live endpoint sent a text frame');
    const event = decode(data as Buffer) as ServerEvent;
    events.push(event);
    for (const waiter of [...waiters]) {
      if (waiter.test(event)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({
        ws,
        events,
        closed,
        send: (event) => ws.send(encode(event)),
        waitFor: (test) => {
          const found = events.find(test);
          return found ? Promise.resolve(found) : new Promise((resolveEvent) => waiters.push({ test, resolve: resolveEvent }));
        },
      }),
    );
  });
}
