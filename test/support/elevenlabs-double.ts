/**
 * A local stand-in for ElevenLabs' multi-context synthesis socket (`GET /v1/text-to-speech/{voice_id}/
 * multi-stream-input` upgraded to a WebSocket), written from ElevenLabs' AsyncAPI description and multi-context guide:
 * the key as the `xi-api-key` header (or `xi_api_key` in a context's first message); a socket with a bad key is
 * closed with 1008 "Invalid API key". Query `model_id`, `output_format` (`pcm_8000`…`pcm_48000`, `ulaw_8000`),
 * `sync_alignment`, `inactivity_timeout`. In: `{ text, context_id }` (a context opens with `text: " "`), `flush`,
 * `close_context` (what was flushed is spoken, the rest dropped, then `isFinal`), `close_socket`. Out:
 * `{ audio, alignment?, normalizedAlignment?, contextId }` (character times relative to each chunk) and
 * `{ isFinal: true, contextId }`.
 *
 * Audio is a tone per word (test/support/synthesis-double-kit.ts). Text is spoken when flushed or once 120 characters wait
 * (the first step of ElevenLabs' default chunk schedule); the first audio of a context comes `firstAudioMs` after
 * its first text is due.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { listen, pieces, sleep, spokenAudio, WebSocketDouble, wireBytes, type DoubleWord } from './synthesis-double-kit.js';

export interface ElevenLabsDoubleOptions {
  keys: string[];
  firstAudioMs: number;
  chunkMs: number;
  /** Wall time between chunks, ms. */
  chunkIntervalMs: number;
  msPerChar: number;
  /** Drop the socket (no close frame), once, after this many chunks in all. */
  dropAfterChunks?: number;
}

export interface ElevenLabsSeen {
  headers: IncomingMessage['headers'];
  query: URLSearchParams;
  voice: string;
  messages: Array<Record<string, unknown>>;
  sent: Array<Record<string, unknown>>;
  socket: WebSocket;
}

interface Context {
  buffer: string;
  due: string[];
  closing: boolean;
  running: boolean;
  firstDueAt?: number;
}

const formats: Record<string, { sampleRate: number; encoding: 'pcm16' | 'mulaw' }> = {
  ulaw_8000: { sampleRate: 8000, encoding: 'mulaw' },
  ...Object.fromEntries([8000, 16000, 22050, 24000, 44100, 48000].map((rate) => [`pcm_${rate}`, { sampleRate: rate, encoding: 'pcm16' as const }])),
};

export class ElevenLabsDouble extends WebSocketDouble<ElevenLabsSeen> {
  private readonly options: ElevenLabsDoubleOptions;
  private chunksSent = 0;

  private constructor(
    server: Server,
    url: string,
    options: Partial<ElevenLabsDoubleOptions>,
  ) {
    super(server, url);
    this.options = { keys: ['test-key'], firstAudioMs: 0, chunkMs: 100, chunkIntervalMs: 0, msPerChar: 20, ...options };
  }

  static async start(options: Partial<ElevenLabsDoubleOptions> = {}): Promise<ElevenLabsDouble> {
    const keys = options.keys ?? ['test-key'];
    // `GET /v1/user`: the key's user, or 401 `invalid_api_key`.
    const { server, url } = await listen((request, response) => {
      if (request.method !== 'GET' || request.url !== '/v1/user') return response.writeHead(404).end();
      const key = request.headers['xi-api-key'] as string | undefined;
      const taken = key !== undefined && keys.includes(key);
      response.writeHead(taken ? 200 : 401, { 'content-type': 'application/json' });
      response.end(JSON.stringify(taken ? { user_id: 'double', subscription: { tier: 'free', character_count: 0, character_limit: 10000 } } : { detail: { status: 'invalid_api_key', message: 'Invalid API key' } }));
    });
    return new ElevenLabsDouble(server, url, options);
  }

  protected upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://double');
    const voice = /^\/v1\/text-to-speech\/([^/]+)\/multi-stream-input$/.exec(url.pathname)?.[1];
    if (!voice) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => this.serve(ws, { headers: request.headers, query: url.searchParams, voice: decodeURIComponent(voice), messages: [], sent: [], socket: ws }));
  }

  private serve(ws: WebSocket, seen: ElevenLabsSeen): void {
    this.seen.push(seen);
    const headerKey = seen.headers['xi-api-key'] as string | undefined;
    if (headerKey !== undefined && !this.options.keys.includes(headerKey)) {
      ws.close(1008, 'Invalid API key');
      return;
    }
    const format = formats[seen.query.get('output_format') ?? 'mp3_44100_128'];
    if (!format) {
      ws.close(1008, `output_format ${seen.query.get('output_format')} is not offered by this double (pcm_* and ulaw_8000 only)`);
      return;
    }
    let authorised = headerKey !== undefined;
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
        ws.close(1008, 'Invalid message');
        return;
      }
      seen.messages.push(message);
      if (!authorised) {
        if (typeof message['xi_api_key'] !== 'string' || !this.options.keys.includes(message['xi_api_key'])) {
          ws.close(1008, 'Invalid API key');
          return;
        }
        authorised = true;
      }
      if (message['close_socket'] === true) {
        ws.close(1000);
        return;
      }
      const contextId = typeof message['context_id'] === 'string' ? message['context_id'] : 'default';
      let context = contexts.get(contextId);
      if (!context) {
        context = { buffer: '', due: [], closing: false, running: false };
        contexts.set(contextId, context);
      }
      if (context.closing) return;
      if (typeof message['text'] === 'string') context.buffer += message['text'];
      if (message['flush'] === true || message['close_context'] === true || context.buffer.trim().length >= 120) {
        if (message['close_context'] !== true && context.buffer.trim()) context.due.push(context.buffer.trim());
        context.buffer = '';
      }
      if (message['close_context'] === true) context.closing = true;
      if (context.due.length > 0) context.firstDueAt ??= Date.now();
      if (!context.running) void this.generate(contextId, context, format, seen, send, ws);
    });
  }

  private async generate(contextId: string, context: Context, format: { sampleRate: number; encoding: 'pcm16' | 'mulaw' }, seen: ElevenLabsSeen, send: (message: Record<string, unknown>) => void, ws: WebSocket): Promise<void> {
    context.running = true;
    if (context.firstDueAt !== undefined) {
      const wait = context.firstDueAt + this.options.firstAudioMs - Date.now();
      if (wait > 0) await sleep(wait);
    }
    const alignment = seen.query.get('sync_alignment') === 'true';
    for (let text = context.due.shift(); text !== undefined && ws.readyState === ws.OPEN; text = context.due.shift()) {
      const { samples, words } = spokenAudio(text, format.sampleRate, this.options.msPerChar);
      const samplesPerChunk = Math.round((format.sampleRate * this.options.chunkMs) / 1000);
      const bytesPerSample = format.encoding === 'mulaw' ? 1 : 2;
      let chunkStartMs = 0;
      for (const piece of pieces(wireBytes(samples, format.encoding), samplesPerChunk * bytesPerSample)) {
        const chunkEndMs = chunkStartMs + (piece.length / bytesPerSample / format.sampleRate) * 1000;
        const chars = alignment ? charactersIn(words, chunkStartMs, chunkEndMs, this.options.msPerChar) : undefined;
        send({ audio: piece.toString('base64'), ...(chars ? { alignment: chars, normalizedAlignment: chars } : {}), contextId });
        chunkStartMs = chunkEndMs;
        this.chunksSent++;
        if (this.options.dropAfterChunks !== undefined && this.chunksSent >= this.options.dropAfterChunks) {
          this.options.dropAfterChunks = undefined;
          ws.terminate();
          return;
        }
        await sleep(this.options.chunkIntervalMs);
      }
    }
    context.running = false;
    if (context.closing && context.due.length === 0) send({ isFinal: true, contextId });
  }
}

/** The characters (each word with the space after it, as the text was sent) that start within a chunk, timed from the chunk's start. */
function charactersIn(words: readonly DoubleWord[], fromMs: number, toMs: number, msPerChar: number): { chars: string[]; charStartTimesMs: number[]; charDurationsMs: number[] } {
  const chars: string[] = [];
  const charStartTimesMs: number[] = [];
  const charDurationsMs: number[] = [];
  words.forEach((word) => {
    [...`${word.word} `].forEach((char, at) => {
      const start = word.startMs + at * msPerChar;
      if (start < fromMs || start >= toMs) return;
      chars.push(char);
      charStartTimesMs.push(Math.round(start - fromMs));
      charDurationsMs.push(msPerChar);
    });
  });
  return { chars, charStartTimesMs, charDurationsMs };
}
