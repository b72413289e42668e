import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { decode, encode } from '@msgpack/msgpack';
import WebSocket from 'ws';
import { ConnectionError, errorForStatus, MalformedResponseError, parseErrorBody, TimeoutError } from './errors.js';

export type ClientLiveEvent =
  | { event: 'start'; request: Record<string, unknown> }
  | { event: 'text'; text: string }
  | { event: 'flush'; utterance_end?: true }
  | { event: 'stop' };

export interface ServerLiveEvent {
  event: string;
  audio?: Uint8Array;
  time?: number;
  reason?: string;
  /** Shoal extension on `finish` (the round) and `utterance_end` (the utterance): what was billed, in credits (a decimal string). */
  charge?: unknown;
  message?: string;
  error?: unknown;
  content?: string;
  alignment?: unknown;
  chunk_seq?: number;
  chunk_audio_offset_sec?: number;
}

export function liveUrl(baseUrl: string, withTimestamps: boolean): string {
  const ws = baseUrl.replace(/^http(s?):\/\//i, (_, secure: string) => (secure ? 'wss://' : 'ws://'));
  return `${ws}/v1/tts/live${withTimestamps ? '/with-timestamp' : ''}`;
}

export function encodeLiveEvent(event: ClientLiveEvent): Uint8Array {
  return encode(event, { ignoreUndefined: true });
}

/** Decodes one binary frame; throws MalformedResponseError for bytes that are not a msgpack map with `event`. */
export function decodeLiveEvent(data: Buffer): ServerLiveEvent | null {
  let decoded: unknown;
  try {
    decoded = decode(data);
  } catch (error) {
    throw new MalformedResponseError('live TTS: the server sent a frame that is not valid msgpack', undefined, data, { cause: error });
  }
  if (!decoded || typeof decoded !== 'object' || Array.isArray(decoded)) {
    throw new MalformedResponseError('live TTS: the server sent a frame that is not a msgpack map', undefined, decoded);
  }
  const event = decoded as ServerLiveEvent;
  return typeof event.event === 'string' ? event : null;
}

function frameBytes(data: WebSocket.RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}

export { frameBytes };

export interface OpenedLiveSocket {
  socket: WebSocket;
  /** The server answered the upgrade with `Shoal-Utterance-End: supported` (shoal serve): flushes may ask for `utterance_end`. */
  utteranceEndEvents: boolean;
}

/**
 * Opens the live socket. A refused upgrade becomes the typed error of its status (401, 402, 429 …),
 * a network failure a ConnectionError, no answer within `timeoutMs` a TimeoutError.
 */
export function openLiveSocket(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  signal?: AbortSignal,
  agent?: HttpAgent | HttpsAgent,
): Promise<OpenedLiveSocket> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const socket = new WebSocket(url, { headers, perMessageDeflate: false, ...(agent ? { agent } : {}) });
    let settled = false;
    let utteranceEndEvents = false;
    const settle = (error: unknown | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error === null) return resolve({ socket, utteranceEndEvents });
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      reject(error);
    };
    const onAbort = () => settle(signal!.reason);
    const timer = setTimeout(() => settle(new TimeoutError(`live TTS: no upgrade within ${timeoutMs} ms`, timeoutMs)), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('upgrade', (response) => (utteranceEndEvents = response.headers['shoal-utterance-end'] === 'supported'));
    socket.once('open', () => settle(null));
    socket.once('unexpected-response', (_request, response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('error', () => undefined);
      response.on('end', () => {
        const retryAfter = response.headers['retry-after'];
        const body = parseErrorBody(Buffer.concat(parts).toString('utf8'));
        settle(errorForStatus(response.statusCode ?? 0, body, typeof retryAfter === 'string' ? retryAfter : null, 'live TTS upgrade'));
      });
    });
    socket.once('error', (error) => settle(new ConnectionError(`live TTS: connection failed (${error.message})`, { cause: error })));
  });
}

/**
 * Pings every `pingIntervalMs`; a socket that has sent nothing (no pong, no frame) for `pingTimeoutMs` is
 * terminated, which the session treats as an unexpected close. Returns the function that stops it.
 */
export function keepAlive(socket: WebSocket, options: { pingIntervalMs: number; pingTimeoutMs: number }): () => void {
  let lastSeen = Date.now();
  const seen = () => (lastSeen = Date.now());
  socket.on('pong', seen);
  socket.on('message', seen);
  const timer = setInterval(() => {
    if (Date.now() - lastSeen > options.pingTimeoutMs) socket.terminate();
    else if (socket.readyState === WebSocket.OPEN) socket.ping();
  }, Math.min(options.pingIntervalMs, options.pingTimeoutMs));
  timer.unref();
  return () => {
    clearInterval(timer);
    socket.off('pong', seen);
    socket.off('message', seen);
  };
}
