/**
 * A local stand-in for Cartesia's streaming synthesis socket (`GET /tts/websocket` upgraded to a WebSocket), written
 * from Cartesia's documentation: the key as `Authorization: Bearer`, `X-API-Key` or `?api_key=`, else the upgrade is
 * refused with 401; the version as the `Cartesia-Version` header or `?cartesia_version=`, else 400. Generation
 * requests (`context_id`, `model_id`, `transcript`, `voice`, `output_format` raw `pcm_s16le`/`pcm_mulaw` at a
 * `sample_rate`, `add_timestamps`, `continue`) and `{ context_id, cancel: true }` in; `chunk` (base64 audio),
 * `timestamps` (`word_timestamps` in seconds from the context's start), `done` and `error` out, per context.
 *
 * Audio is a tone per word (test/support/synthesis-double-kit.ts). The first audio of a context comes `firstAudioMs` after
 * its first transcript; the rest in chunks of `chunkMs`, `chunkIntervalMs` apart.
 */
import type { IncomingMessage } from 'node:http';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { listen, pieces, sleep, spokenAudio, WebSocketDouble, wireBytes } from './synthesis-double-kit.js';

export interface CartesiaDoubleOptions {
  keys: string[];
  firstAudioMs: number;
  chunkMs: number;
  /** Wall time between chunks, ms (0: as fast as they are made). */
  chunkIntervalMs: number;
  msPerChar: number;
  /** Serve `wss://` (for `@cartesia/cartesia-js`, which always opens it). */
  tls: boolean;
  /** Drop the socket (no close frame), once, after this many chunks in all, to play a provider dying mid-reply. */
  dropAfterChunks?: number;
}

export interface CartesiaSeen {
  headers: IncomingMessage['headers'];
  query: URLSearchParams;
  /** Every message received, parsed. */
  messages: Array<Record<string, unknown>>;
  /** Every message sent, parsed. */
  sent: Array<Record<string, unknown>>;
  socket: WebSocket;
}

interface Context {
  texts: string[];
  ended: boolean;
  cancelled: boolean;
  running: boolean;
  startedAt?: number;
  offsetMs: number;
}

const encodings = { pcm_s16le: 'pcm16', pcm_mulaw: 'mulaw' } as const;

export class CartesiaDouble extends WebSocketDouble<CartesiaSeen> {
  private readonly options: CartesiaDoubleOptions;
  private chunksSent = 0;

  private constructor(
    server: Server,
    url: string,
    options: Partial<CartesiaDoubleOptions>,
  ) {
    super(server, url);
    this.options = { keys: ['test-key'], firstAudioMs: 0, chunkMs: 100, chunkIntervalMs: 0, msPerChar: 20, tls: false, ...options };
  }

  static async start(options: Partial<CartesiaDoubleOptions> = {}): Promise<CartesiaDouble> {
    const keys = options.keys ?? ['test-key'];
    // `GET /voices`: a page of the account's voices, or 401 for a key not taken.
    const { server, url } = await listen((request, response) => {
      if (request.method !== 'GET' || new URL(request.url ?? '/', 'http://double').pathname !== '/voices') return response.writeHead(404).end();
      const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? (request.headers['x-api-key'] as string | undefined);
      const taken = key !== undefined && keys.includes(key);
      response.writeHead(taken ? 200 : 401, { 'content-type': 'application/json' });
      response.end(JSON.stringify(taken ? { data: [], has_more: false } : { error: 'Invalid API key' }));
    }, options.tls ?? false);
    return new CartesiaDouble(server, url, options);
  }

  protected upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://double');
    const refuse = (status: number, text: string, body: object) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${JSON.stringify(body)}`);
    };
    if (url.pathname !== '/tts/websocket') return refuse(404, 'Not Found', { error: 'Not found' });
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const key = bearer ?? (request.headers['x-api-key'] as string | undefined) ?? url.searchParams.get('api_key') ?? undefined;
    if (!key || !this.options.keys.includes(key)) return refuse(401, 'Unauthorized', { error: 'Invalid API key' });
    if (!request.headers['cartesia-version'] && !url.searchParams.get('cartesia_version')) return refuse(400, 'Bad Request', { error: 'Missing Cartesia-Version' });
    this.wss.handleUpgrade(request, socket, head, (ws) => this.serve(ws, { headers: request.headers, query: url.searchParams, messages: [], sent: [], socket: ws }));
  }

  private serve(ws: WebSocket, seen: CartesiaSeen): void {
    this.seen.push(seen);
    const contexts = new Map<string, Context>();
    const send = (message: Record<string, unknown>) => {
      if (ws.readyState !== ws.OPEN) return;
      seen.sent.push(message);
      ws.send(JSON.stringify(message));
    };
    ws.on('message', (data) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(data.toString()) as Record<string, unknown>;
      } catch {
        send({ type: 'error', status_code: 400, title: 'Invalid request', message: 'messages must be JSON', done: true });
        return;
      }
      seen.messages.push(message);
      const contextId = typeof message['context_id'] === 'string' ? message['context_id'] : undefined;
      if (message['cancel'] === true) {
        const context = contextId ? contexts.get(contextId) : undefined;
        if (context) context.cancelled = true;
        return;
      }
      const invalid = invalidRequest(message);
      if (invalid || !contextId) {
        send({ type: 'error', ...(contextId ? { context_id: contextId } : {}), status_code: 400, title: 'Invalid request', message: invalid ?? 'context_id is required', done: true });
        return;
      }
      let context = contexts.get(contextId);
      if (!context) {
        context = { texts: [], ended: false, cancelled: false, running: false, offsetMs: 0 };
        contexts.set(contextId, context);
      }
      if (context.cancelled || context.ended) return;
      if (String(message['transcript'])) context.texts.push(String(message['transcript']));
      if (message['continue'] !== true) context.ended = true;
      context.startedAt ??= Date.now();
      if (!context.running) void this.generate(contextId, context, message, send, ws);
    });
  }

  private async generate(contextId: string, context: Context, request: Record<string, unknown>, send: (message: Record<string, unknown>) => void, ws: WebSocket): Promise<void> {
    context.running = true;
    const format = request['output_format'] as { encoding: keyof typeof encodings; sample_rate: number };
    const wait = context.startedAt! + this.options.firstAudioMs - Date.now();
    if (wait > 0) await sleep(wait);
    while (!context.cancelled && ws.readyState === ws.OPEN) {
      const text = context.texts.shift();
      if (text === undefined) {
        if (context.ended) send({ type: 'done', context_id: contextId, status_code: 200, done: true });
        break;
      }
      const { samples, words } = spokenAudio(text, format.sample_rate, this.options.msPerChar);
      const chunkBytes = Math.round((format.sample_rate * this.options.chunkMs) / 1000) * (format.encoding === 'pcm_mulaw' ? 1 : 2);
      for (const piece of pieces(wireBytes(samples, encodings[format.encoding]), chunkBytes)) {
        if (context.cancelled) break;
        send({ type: 'chunk', context_id: contextId, status_code: 206, done: false, data: piece.toString('base64'), step_time: 1 });
        this.chunksSent++;
        if (this.options.dropAfterChunks !== undefined && this.chunksSent >= this.options.dropAfterChunks) {
          this.options.dropAfterChunks = undefined;
          ws.terminate();
          return;
        }
        await sleep(this.options.chunkIntervalMs);
      }
      if (request['add_timestamps'] === true && !context.cancelled) {
        const offset = context.offsetMs;
        send({
          type: 'timestamps',
          context_id: contextId,
          status_code: 206,
          done: false,
          word_timestamps: { words: words.map((w) => w.word), start: words.map((w) => (w.startMs + offset) / 1000), end: words.map((w) => (w.endMs + offset) / 1000) },
        });
      }
      context.offsetMs += (samples.length * 1000) / format.sample_rate;
    }
    context.running = false;
  }
}

/** What Cartesia would refuse in a generation request, or undefined. */
function invalidRequest(message: Record<string, unknown>): string | undefined {
  if (typeof message['model_id'] !== 'string') return 'model_id is required';
  if (typeof message['transcript'] !== 'string') return 'transcript is required';
  const voice = message['voice'] as { mode?: string; id?: string } | undefined;
  if (voice?.mode !== 'id' || !voice.id) return 'voice must be { mode: "id", id }';
  const format = message['output_format'] as { container?: string; encoding?: string; sample_rate?: number } | undefined;
  if (format?.container !== 'raw') return 'this double speaks only the raw container';
  if (!format.encoding || !(format.encoding in encodings)) return `encoding ${String(format.encoding)} is not supported here`;
  if (!format.sample_rate || ![8000, 16000, 22050, 24000, 44100, 48000].includes(format.sample_rate)) return `sample_rate ${String(format.sample_rate)} is not supported`;
  return undefined;
}
