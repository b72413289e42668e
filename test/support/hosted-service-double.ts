/**
 * A stand-in for a hosted speech service, speaking its wire protocol with fixed engine latencies: `POST /v1/asr`
 * (multipart or msgpack body) answers `text` after `asrDelayMs`; the live TTS WebSocket `/v1/tts/live` (msgpack
 * `start` / `text` / `flush` / `stop`) answers each flush after `ttsDelayMs` with 16-bit PCM at the start
 * request's `sample_rate`, sent in `chunkMs` pieces paced in real time, and `stop` with a `finish`. With `listen`,
 * the live recognition WebSocket `/v1/listen` too (Deepgram's messages): `Finalize` is answered `text` as a
 * `from_finalize` final after `asrDelayMs`, `CloseStream` with `Metadata`. It records what it was asked
 * (`requests`), so tests and benches can check the agent really used it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decode, encode } from '@msgpack/msgpack';
import { WebSocketServer, type WebSocket } from 'ws';

export interface HostedDoubleOptions {
  /** What every recognition answers. */
  text: string;
  asrDelayMs: number;
  /** Time from a flush to its first audio. */
  ttsDelayMs: number;
  /** Audio per character of text, and the most audio one flush gets. */
  msPerCharacter: number;
  maxUtteranceMs: number;
  chunkMs: number;
  /** Pace each flush's audio in real time; off: all of it at once, after `ttsDelayMs` (for calls on a virtual clock). */
  paced: boolean;
  /** Serve `/v1/listen` (without it, the agent's start-up probe finds none and recognises over `/v1/asr`). */
  listen: boolean;
}

export const hostedDoubleDefaults: HostedDoubleOptions = { text: 'four one nine two', asrDelayMs: 150, ttsDelayMs: 120, msPerCharacter: 50, maxUtteranceMs: 3000, chunkMs: 40, paced: true, listen: false };

export interface AsrRequest {
  bytes: number;
  /** The `hints` field, parsed, when the request carried one. */
  hints?: unknown;
  language?: string;
  authorization?: string;
}

export interface HostedDouble {
  url: string;
  /** `liveRates`: the `sample_rate` of each live `start`, in order (16000 when it named none). */
  readonly requests: { asr: AsrRequest[]; liveSockets: number; liveRates: number[]; flushes: number; audioMs: number; listenSockets: number; finalizes: number };
  /** Live TTS sockets open now. */
  openLiveSockets(): number;
  close(): Promise<void>;
}

interface Stream {
  socket: WebSocket;
  sampleRate: number;
  /** Audio still to send for this socket, in ms, and when the next piece is due. */
  pendingMs: number;
  dueAt: number;
  stopAfter: boolean;
}

export async function startHostedDouble(options: Partial<HostedDoubleOptions> = {}, port = 0): Promise<HostedDouble> {
  const o = { ...hostedDoubleDefaults, ...options };
  const requests = { asr: [] as AsrRequest[], liveSockets: 0, liveRates: [] as number[], flushes: 0, audioMs: 0, listenSockets: 0, finalizes: 0 };
  const server: Server = createServer((request, response) => {
    if (request.method === 'POST' && request.url?.split('?')[0] === '/v1/asr') {
      void readAsr(request).then(
        (asr) => {
          requests.asr.push(asr);
          setTimeout(() => {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end(JSON.stringify({ text: o.text, duration: 0, segments: [] }));
          }, o.asrDelayMs);
        },
        (error: Error) => {
          response.writeHead(400, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ status: 400, message: error.message }));
        },
      );
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status: 404, message: `${request.method} ${request.url} is not served by this stand-in` }));
  });
  const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const streams = new Set<Stream>();
  server.on('upgrade', (request, socket, head) => {
    const path = request.url?.split('?')[0];
    if (path === '/v1/listen' && o.listen) return sockets.handleUpgrade(request, socket, head, (ws) => listen(ws));
    if (path !== '/v1/tts/live') return socket.destroy();
    sockets.handleUpgrade(request, socket, head, (ws) => live(ws));
  });

  function listen(ws: WebSocket): void {
    requests.listenSockets++;
    let bytes = 0;
    let finalizedTo = 0;
    const seconds = () => bytes / 2 / 16000;
    const send = (message: object) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    ws.on('message', (data: Buffer, binary: boolean) => {
      if (binary) return void (bytes += data.length);
      const type = (JSON.parse(data.toString()) as { type?: string }).type;
      if (type === 'Finalize') {
        requests.finalizes++;
        const start = finalizedTo;
        finalizedTo = seconds();
        const alternative = { transcript: o.text, confidence: 0.98, words: [] };
        const final = { type: 'Results', channel_index: [0, 1], start, duration: finalizedTo - start, is_final: true, speech_final: false, from_finalize: true, channel: { alternatives: [alternative] } };
        setTimeout(() => send(final), o.asrDelayMs);
      } else if (type === 'CloseStream') {
        send({ type: 'Metadata', request_id: 'stand-in', created: new Date().toISOString(), duration: seconds(), channels: 1 });
        ws.close(1000);
      }
    });
    ws.on('error', () => undefined);
  }

  const pieces = new Map<number, Uint8Array>();
  const piece = (sampleRate: number) => {
    let bytes = pieces.get(sampleRate);
    if (!bytes) {
      const samples = new Int16Array((sampleRate * o.chunkMs) / 1000);
      for (let i = 0; i < samples.length; i++) samples[i] = Math.round(6000 * Math.sin((2 * Math.PI * 220 * i) / sampleRate));
      bytes = new Uint8Array(samples.buffer);
      pieces.set(sampleRate, bytes);
    }
    return bytes;
  };

  function live(ws: WebSocket): void {
    requests.liveSockets++;
    const stream: Stream = { socket: ws, sampleRate: 16000, pendingMs: 0, dueAt: 0, stopAfter: false };
    let text = '';
    ws.on('message', (data: Buffer) => {
      const frame = decode(data) as { event: string; request?: { sample_rate?: number }; text?: string };
      if (frame.event === 'start') {
        stream.sampleRate = frame.request?.sample_rate ?? 16000;
        requests.liveRates.push(stream.sampleRate);
      }
      else if (frame.event === 'text') text += frame.text ?? '';
      else if (frame.event === 'flush' || frame.event === 'stop') {
        requests.flushes++;
        const ms = Math.min(o.maxUtteranceMs, Math.max(o.chunkMs, text.trim().length * o.msPerCharacter));
        text = '';
        stream.stopAfter = frame.event === 'stop';
        if (stream.pendingMs <= 0) stream.dueAt = performance.now() + o.ttsDelayMs;
        stream.pendingMs += ms;
        streams.add(stream);
      }
    });
    ws.on('close', () => streams.delete(stream));
    ws.on('error', () => undefined);
  }

  // One pacing clock for every socket: each gets its next piece when it is due, as a real-time synthesiser would.
  const pacer = setInterval(() => {
    const now = performance.now();
    for (const stream of streams) {
      while (stream.pendingMs > 0 && stream.dueAt <= now) {
        stream.socket.send(encode({ event: 'audio', audio: piece(stream.sampleRate) }));
        requests.audioMs += o.chunkMs;
        stream.pendingMs -= o.chunkMs;
        if (o.paced) stream.dueAt += o.chunkMs;
      }
      if (stream.pendingMs > 0) continue;
      streams.delete(stream);
      if (stream.stopAfter) stream.socket.send(encode({ event: 'finish', reason: 'stop' }));
    }
  }, 10);

  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    openLiveSockets: () => sockets.clients.size,
    close: async () => {
      clearInterval(pacer);
      for (const client of sockets.clients) client.terminate();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function readAsr(request: IncomingMessage): Promise<AsrRequest> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const body = Buffer.concat(parts);
  const type = request.headers['content-type'] ?? '';
  const authorization = request.headers.authorization;
  if (type.includes('msgpack')) {
    const fields = decode(body) as { audio?: Uint8Array; hints?: unknown; language?: string };
    return { bytes: fields.audio?.byteLength ?? 0, hints: fields.hints, language: fields.language, authorization };
  }
  const form = await new Response(body, { headers: { 'content-type': type } }).formData();
  const audio = form.get('audio');
  if (!(audio instanceof Blob)) throw new Error('the request has no audio part');
  const hints = form.get('hints');
  const language = form.get('language');
  return {
    bytes: audio.size,
    ...(typeof hints === 'string' ? { hints: JSON.parse(hints) as unknown } : {}),
    ...(typeof language === 'string' ? { language } : {}),
    authorization,
  };
}
