/**
 * A local stand-in for Deepgram's live recognition socket (`GET /v1/listen` upgraded to a WebSocket), written from
 * Deepgram's documentation: `Authorization: Token <key>` (or `Bearer`), else the upgrade is refused with 401 and
 * `{"err_code":"INVALID_AUTH","err_msg":"Invalid credentials."}`; the query's `encoding` (`linear16`, `mulaw`),
 * `sample_rate`, `interim_results`, `endpointing`, `utterance_end_ms`, `vad_events`, `keyterm`; binary audio in;
 * `KeepAlive`, `Finalize`, `CloseStream` text frames; `Results` (`is_final`, `speech_final`, `from_finalize`),
 * `SpeechStarted`, `UtteranceEnd`, `Metadata` out; close 1011 `NET-0001` after 10 s with neither audio nor KeepAlive.
 *
 * It cannot recognise speech: it hears loud audio as speech (energy per 10 ms) and says the next line of
 * `script` for each stretch of it, word by word over the stretch's duration. Latencies are fixed (`latency`).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeMuLaw } from '../../src/audio/index.js';

export interface DeepgramDoubleOptions {
  /** Keys it accepts. */
  keys: string[];
  /** What each stretch of speech "says", in order across the double's sockets (then "hello"). */
  script: string[];
  /** Fixed latencies, ms: an interim after audio, a final after `Finalize` or the endpointing silence. */
  latency: { interimMs: number; finalMs: number };
  /** Silence in the audio that ends speech for `SpeechStarted` again and for `speech_final` without `endpointing`, ms. */
  quietMs: number;
  /** Mean absolute sample above which 10 ms of audio is speech. */
  speechLevel: number;
  idleTimeoutMs: number;
  /** Interim results when the query asks for them; `false` plays a server that gives finals only. */
  interims: boolean;
}

export interface SeenSocket {
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** The control messages received, in order (`KeepAlive`, `Finalize`, `CloseStream`). */
  controls: string[];
  audioBytes: number;
  /** The size of each audio message, bytes, in order; a control message's place among them is `controlsAfter`. */
  audioMessages: number[];
  /** For each control message, how many audio messages came before it. */
  controlsAfter: number[];
  socket: WebSocket;
}

interface Word {
  word: string;
  start: number;
  end: number;
  confidence: number;
  punctuated_word: string;
}

export class DeepgramDouble {
  readonly seen: SeenSocket[] = [];
  private readonly options: DeepgramDoubleOptions;
  private scriptIndex = 0;

  private constructor(
    private readonly server: Server,
    private readonly wss: WebSocketServer,
    options: Partial<DeepgramDoubleOptions>,
  ) {
    this.options = { keys: ['test-key'], script: [], latency: { interimMs: 0, finalMs: 0 }, quietMs: 300, speechLevel: 500, idleTimeoutMs: 10_000, interims: true, ...options };
  }

  static async start(options: Partial<DeepgramDoubleOptions> = {}): Promise<DeepgramDouble> {
    const keys = options.keys ?? ['test-key'];
    // `GET /v1/auth/token`, Deepgram's documented key test: the key's details, or 401 "Invalid credentials.".
    const server = createServer((request, response) => {
      if (request.method !== 'GET' || new URL(request.url ?? '/', 'http://double').pathname !== '/v1/auth/token') return response.writeHead(404).end();
      const key = /^(Token|Bearer) (.+)$/.exec(request.headers.authorization ?? '')?.[2];
      response.writeHead(key && keys.includes(key) ? 200 : 401, { 'content-type': 'application/json' });
      response.end(JSON.stringify(key && keys.includes(key) ? { api_key_id: 'double', accessor: 'double', scopes: ['member'] } : { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: randomUUID() }));
    });
    const wss = new WebSocketServer({ noServer: true });
    const double = new DeepgramDouble(server, wss, options);
    server.on('upgrade', (request, socket, head) => double.upgrade(request, socket as import('node:net').Socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return double;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Drops every open socket without a close frame (a provider dying mid-call). */
  kill(): void {
    for (const seen of this.seen) seen.socket.terminate();
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private upgrade(request: IncomingMessage, socket: import('node:net').Socket, head: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://double');
    const reject = (status: number, body: object) => {
      const text = JSON.stringify(body);
      socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Bad Request'}\r\ncontent-type: application/json\r\ndg-error: ${(body as { err_msg: string }).err_msg}\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
    };
    if (url.pathname !== '/v1/listen') return reject(404 as number, { err_code: 'NOT_FOUND', err_msg: 'Not found.' });
    const auth = /^(Token|Bearer) (.+)$/.exec(request.headers.authorization ?? '');
    if (!auth || !this.options.keys.includes(auth[2]!)) return reject(401, { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: randomUUID() });
    const encoding = url.searchParams.get('encoding') ?? 'linear16';
    const sampleRate = Number(url.searchParams.get('sample_rate') ?? 16000);
    if (!['linear16', 'mulaw'].includes(encoding) || !Number.isInteger(sampleRate) || sampleRate < 8000) {
      return reject(400, { err_code: 'Bad Request', err_msg: `unsupported encoding ${encoding} at ${sampleRate} Hz` });
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => this.serve(ws, url.searchParams, request.headers, encoding, sampleRate));
  }

  private serve(socket: WebSocket, query: URLSearchParams, headers: IncomingMessage['headers'], encoding: string, sampleRate: number): void {
    const seen: SeenSocket = { query, headers, controls: [], audioBytes: 0, audioMessages: [], controlsAfter: [], socket };
    this.seen.push(seen);
    const o = this.options;
    const flag = (name: string) => query.get(name) === 'true';
    const interimResults = flag('interim_results') && o.interims;
    const endpointing = query.get('endpointing') === 'false' ? undefined : Number(query.get('endpointing') ?? 10);
    const utteranceEndMs = query.get('utterance_end_ms') ? Number(query.get('utterance_end_ms')) : undefined;
    const requestId = randomUUID();
    let audioMs = 0; // stream time of the audio heard
    let finalizedToMs = 0; // audio up to here has been given as final
    let speech: { startMs: number; words: string[]; lastLoudMs: number } | undefined;
    let lastWordEndMs: number | undefined;
    let lastInterimMs = 0;
    let idle = setTimeout(() => socket.close(1011, 'NET-0001'), o.idleTimeoutMs);
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => socket.close(1011, 'NET-0001'), o.idleTimeoutMs);
    };
    const later = (ms: number, message: object) => {
      const text = JSON.stringify(message);
      const send = () => socket.readyState === socket.OPEN && socket.send(text);
      if (ms > 0) setTimeout(send, ms);
      else send();
    };
    const wordsOf = (line: string, startMs: number, endMs: number, count: number): Word[] => {
      const all = line.split(/\s+/).filter(Boolean);
      const span = Math.max(1, endMs - startMs) / Math.max(1, all.length);
      return all.slice(0, count).map((word, index) => ({
        word: word.toLowerCase().replace(/[^a-z0-9']/g, ''),
        punctuated_word: word,
        start: (startMs + index * span) / 1000,
        end: (startMs + (index + 1) * span) / 1000,
        confidence: 0.98,
      }));
    };
    const results = (words: Word[], fromMs: number, toMs: number, flags: { is_final: boolean; speech_final: boolean; from_finalize?: boolean }) => ({
      type: 'Results',
      channel_index: [0, 1],
      duration: (toMs - fromMs) / 1000,
      start: fromMs / 1000,
      ...flags,
      channel: { alternatives: [{ transcript: words.map((word) => word.punctuated_word).join(' '), confidence: words.length ? 0.98 : 0, words }] },
      metadata: { request_id: requestId, model_info: { name: query.get('model') ?? 'general', version: '2024-01-01', arch: 'nova-3' }, model_uuid: randomUUID() },
    });
    /** Ends the current speech as final: its words over [speech start, now]. */
    const finalSpeech = (flags: { speech_final: boolean; from_finalize?: boolean }, latencyMs: number) => {
      const words = speech ? wordsOf(speech.words.join(' '), speech.startMs, speech.lastLoudMs, speech.words.length) : [];
      if (words.length) lastWordEndMs = words.at(-1)!.end * 1000;
      later(latencyMs, results(words, finalizedToMs, audioMs, { is_final: true, ...flags }));
      finalizedToMs = audioMs;
      speech = undefined;
    };
    socket.on('message', (data, binary) => {
      touch();
      if (!binary) {
        let type: unknown;
        try {
          type = (JSON.parse(data.toString()) as { type?: unknown }).type;
        } catch {
          type = undefined;
        }
        seen.controls.push(String(type));
        seen.controlsAfter.push(seen.audioMessages.length);
        if (type === 'Finalize') finalSpeech({ speech_final: false, from_finalize: true }, o.latency.finalMs);
        if (type === 'CloseStream') {
          if (speech) finalSpeech({ speech_final: true }, 0);
          later(0, { type: 'Metadata', transaction_key: 'deprecated', request_id: requestId, sha256: '', created: new Date().toISOString(), duration: audioMs / 1000, channels: 1 });
          setTimeout(() => socket.close(1000), 5);
        }
        return;
      }
      const bytes = data as Buffer;
      seen.audioBytes += bytes.length;
      seen.audioMessages.push(bytes.length);
      const samples = encoding === 'mulaw' ? decodeMuLaw(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length)) : new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      const per10ms = sampleRate / 100;
      for (let offset = 0; offset < samples.length; offset += per10ms) {
        const slice = samples.subarray(offset, offset + per10ms);
        let sum = 0;
        for (const sample of slice) sum += Math.abs(sample);
        const loud = sum / Math.max(1, slice.length) > o.speechLevel;
        audioMs += (slice.length * 1000) / sampleRate;
        if (loud) {
          if (!speech) {
            const line = this.options.script[this.scriptIndex++] ?? 'hello';
            speech = { startMs: audioMs - 10, words: line.split(/\s+/).filter(Boolean), lastLoudMs: audioMs };
            if (flag('vad_events')) later(0, { type: 'SpeechStarted', channel: [0, 1], timestamp: speech.startMs / 1000 });
          }
          speech.lastLoudMs = audioMs;
          if (interimResults && audioMs - lastInterimMs >= 250) {
            lastInterimMs = audioMs;
            const heard = Math.max(1, Math.ceil((speech.words.length * (audioMs - speech.startMs)) / 1000));
            later(o.latency.interimMs, results(wordsOf(speech.words.join(' '), speech.startMs, audioMs, heard), finalizedToMs, audioMs, { is_final: false, speech_final: false }));
          }
        } else if (speech && endpointing !== undefined && audioMs - speech.lastLoudMs >= Math.max(endpointing, 10)) {
          finalSpeech({ speech_final: true }, o.latency.finalMs);
        } else if (!speech && utteranceEndMs !== undefined && interimResults && lastWordEndMs !== undefined && audioMs - lastWordEndMs >= utteranceEndMs) {
          later(0, { type: 'UtteranceEnd', channel: [0, 1], last_word_end: lastWordEndMs / 1000 });
          lastWordEndMs = undefined;
        }
      }
    });
    socket.on('close', () => clearTimeout(idle));
  }
}
