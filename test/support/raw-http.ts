/** Raw TCP clients for probing an HTTP server the way a careless or hostile client would. */
import { connect, type Socket } from 'node:net';

export interface RawExchange {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves with what was received and how long the connection lived, in ms, once the server closes it. */
  closed: Promise<{ text: string; afterMs: number }>;
}

export function openRaw(url: string, initial?: string | Buffer): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const openedAt = performance.now();
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    const closed = new Promise<{ text: string; afterMs: number }>((resolveClosed) =>
      socket.on('close', () => resolveClosed({ text, afterMs: performance.now() - openedAt })),
    );
    socket.on('error', () => {});
    socket.once('connect', () => {
      if (initial !== undefined) socket.write(initial);
      resolve({ socket, received: () => text, closed });
    });
    socket.once('error', reject);
  });
}

/** Status code and parsed JSON body of a raw HTTP/1.1 response text. */
export function parseRawResponse(text: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  let json: unknown = body;
  try {
    json = JSON.parse(body);
  } catch {
    // chunked or empty bodies stay text
  }
  return { status, body: json };
}

/** Opens a WebSocket by hand (no client library), so a test can stop reading at the TCP level. */
export async function openRawWebSocket(url: string, path: string, headers: Record<string, string>): Promise<RawExchange> {
  const lines = [
    `GET ${path} HTTP/1.1`,
    'Host: x',
    'Upgrade: websocket',
    'Connection: Upgrade',
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Key: ${Buffer.from('shoal-raw-socket').toString('base64')}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  const raw = await openRaw(url, `${lines.join('\r\n')}\r\n\r\n`);
  const deadline = Date.now() + 5000;
  while (!raw.received().includes('\r\n\r\n')) {
    if (Date.now() > deadline) throw new Error(`no upgrade answer: ${raw.received()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (!raw.received().startsWith('HTTP/1.1 101')) throw new Error(`upgrade refused: ${raw.received()}`);
  return raw;
}

/** A masked binary WebSocket frame, as a client must send it. */
export function clientFrame(payload: Uint8Array): Buffer {
  const mask = Buffer.from([1, 2, 3, 4]);
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x82, 0x80 | length]) : length < 65536 ? Buffer.from([0x82, 0x80 | 126, length >> 8, length & 255]) : undefined;
  if (!head) throw new RangeError('frames over 64 KB are not needed here');
  const body = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  return Buffer.concat([head, mask, body]);
}
