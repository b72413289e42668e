import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** What the transport needs of one HTTP exchange, whichever stack carries it. */
export interface WireResponse {
  status: number;
  headers: Headers;
  /** Body chunks; throws when the connection breaks or the signal aborts. */
  body: AsyncIterable<Uint8Array>;
  /** Drops the rest of the body. */
  cancel(): void;
}

export interface WireRequest {
  method: string;
  headers: Record<string, string>;
  body: BodyInit | undefined;
  signal: AbortSignal;
}

export type Wire = (url: string, request: WireRequest) => Promise<WireResponse>;

/** A Wire over a `fetch` implementation (the caller's custom fetch). */
export function fetchWire(fetchFn: typeof fetch): Wire {
  return async (url, request) => {
    const init: RequestInit & { duplex?: 'half' } = { method: request.method, headers: request.headers, body: request.body, signal: request.signal };
    if (request.body instanceof ReadableStream) init.duplex = 'half';
    const response = await fetchFn(url, init);
    const stream = response.body;
    return {
      status: response.status,
      headers: response.headers,
      body: stream ? (stream as unknown as AsyncIterable<Uint8Array>) : emptyBody(),
      cancel: () => void stream?.cancel().catch(() => undefined),
    };
  };
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {}

const sharedAgents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

function headersOf(message: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** Turns FormData (and other Web bodies) into bytes plus the content type they imply, such as the multipart boundary. */
async function serialise(body: BodyInit): Promise<{ bytes: Uint8Array; contentType: string | null }> {
  const response = new Response(body);
  return { bytes: new Uint8Array(await response.arrayBuffer()), contentType: response.headers.get('content-type') };
}

/**
 * The default Wire: node:http(s) with keep-alive agents (or the caller's agent). It is leaner than the
 * global fetch on the path to the first audio byte, which is what the TTS calls are judged by.
 */
export function nodeWire(agent?: HttpAgent | HttpsAgent): Wire {
  return async (url, request) => {
    const secure = url.startsWith('https:');
    const headers = { ...request.headers };
    let bytes: Uint8Array | undefined;
    let stream: ReadableStream<Uint8Array> | undefined;
    const body = request.body;
    if (body instanceof Uint8Array) bytes = body;
    else if (typeof body === 'string') bytes = Buffer.from(body);
    else if (body instanceof ReadableStream) stream = body;
    else if (body !== undefined && body !== null) {
      const serialised = await serialise(body);
      bytes = serialised.bytes;
      if (serialised.contentType && !headers['content-type']) headers['content-type'] = serialised.contentType;
    }
    if (bytes) headers['content-length'] = String(bytes.byteLength);
    return new Promise<WireResponse>((resolve, reject) => {
      const send = secure ? httpsRequest : httpRequest;
      const outgoing = send(url, { method: request.method, headers, agent: agent ?? (secure ? sharedAgents.https : sharedAgents.http), signal: request.signal });
      outgoing.once('error', reject);
      outgoing.once('response', (response) => {
        outgoing.off('error', reject);
        outgoing.on('error', () => undefined);
        resolve({
          status: response.statusCode ?? 0,
          headers: headersOf(response),
          body: response as AsyncIterable<Uint8Array>,
          cancel: () => response.destroy(),
        });
      });
      if (stream) void pipeStream(stream, outgoing, reject);
      else outgoing.end(bytes);
    });
  };
}

async function pipeStream(stream: ReadableStream<Uint8Array>, outgoing: import('node:http').ClientRequest, reject: (error: unknown) => void) {
  try {
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      if (!outgoing.write(chunk)) await new Promise((resolve) => outgoing.once('drain', resolve));
    }
    outgoing.end();
  } catch (error) {
    outgoing.destroy(error as Error);
    reject(error);
  }
}
