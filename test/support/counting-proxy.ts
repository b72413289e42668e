/**
 * A loopback HTTP and WebSocket proxy in front of a speech service that counts what goes through it: WebSocket
 * upgrades and HTTP requests by path. `refuseUpgrades` paths answer 404, as a service without that socket does.
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

export interface CountingProxy {
  url: string;
  /** `GET /v1/listen (upgrade)`, `POST /v1/asr`, … → how many came. */
  readonly counts: Map<string, number>;
  count(key: string): number;
  close(): Promise<void>;
}

function head(request: IncomingMessage): string {
  const lines = [`${request.method} ${request.url} HTTP/${request.httpVersion}`];
  for (let i = 0; i < request.rawHeaders.length; i += 2) lines.push(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export async function startCountingProxy(target: string, options: { refuseUpgrades?: string[] } = {}): Promise<CountingProxy> {
  const to = new URL(target);
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const pathOf = (request: IncomingMessage) => (request.url ?? '/').split('?')[0];
  const server = createServer((request, response) => {
    add(`${request.method} ${pathOf(request)}`);
    const upstream = httpRequest({ host: to.hostname, port: to.port, method: request.method, path: request.url, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  server.on('upgrade', (request, socket, rest: Buffer) => {
    const path = pathOf(request)!;
    add(`GET ${path} (upgrade)`);
    socket.on('error', () => socket.destroy());
    if (options.refuseUpgrades?.includes(path)) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 21\r\nConnection: close\r\n\r\n{"message":"no such"}');
      return;
    }
    const upstream = connect(Number(to.port), to.hostname, () => {
      upstream.write(head(request));
      if (rest.length > 0) upstream.write(rest);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    count: (key) => counts.get(key) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
