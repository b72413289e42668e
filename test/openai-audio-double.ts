/**
 * A local stand-in for OpenAI's audio API (and the servers that copy it: speaches, Kokoro-FastAPI, vLLM, LocalAI),
 * written from OpenAI's API reference: `Authorization: Bearer <key>`, else 401 with
 * `{"error":{"message":"Incorrect API key provided…","type":"invalid_request_error","code":"invalid_api_key"}}`.
 *
 * - `POST /v1/audio/transcriptions` (multipart: `file`, `model`, `language`, `prompt`, `response_format` `json`/
 *   `verbose_json`/`text`, `timestamp_granularities[]`): says the next line of `script` `transcriptionMs` after the
 *   request, its words spread evenly over the uploaded WAV (`words` in `verbose_json` when `word` is asked for).
 * - `POST /v1/audio/speech` (JSON: `model`, `voice`, `input`, `response_format` `pcm` (24 kHz s16le) or `wav`,
 *   `stream_format` `audio` or `sse`): a tone per word (test/synthesis-double-kit.ts), the first bytes `firstAudioMs`
 *   after the request, the rest in chunks of `chunkMs`, `chunkIntervalMs` apart; `sse` as `speech.audio.delta` events
 *   and a `speech.audio.done`.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { encodeWav, parseWav } from '../src/audio/index.js';
import { listen, pieces, sleep, spokenAudio, wireBytes } from './synthesis-double-kit.js';

export interface OpenAiAudioDoubleOptions {
  keys: string[];
  script: string[];
  transcriptionMs: number;
  firstAudioMs: number;
  chunkMs: number;
  chunkIntervalMs: number;
  msPerChar: number;
  /** Whether `stream_format: sse` is offered (OpenAI: `gpt-4o-mini-tts` only); else it is refused with 400. */
  sse: boolean;
  /** Answer every request with this status (a provider failing), once set. */
  failWith?: number;
  /** Cut the speech body (destroy the connection), once, after this many chunks. */
  dropAfterChunks?: number;
}

export interface OpenAiSeenRequest {
  path: string;
  headers: IncomingMessage['headers'];
  /** Multipart fields (transcriptions; the file as its byte length) or the JSON body (speech). */
  fields: Record<string, unknown>;
  /** The uploaded WAV's sample rate (transcriptions). */
  sampleRate?: number;
  /** True when the client closed the request before its body was all sent. */
  aborted: boolean;
}

const rejection = (key: string | undefined) => ({
  error: { message: `Incorrect API key provided: ${key ?? ''}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
});

export class OpenAiAudioDouble {
  readonly seen: OpenAiSeenRequest[] = [];
  readonly options: OpenAiAudioDoubleOptions;
  private scriptIndex = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    options: Partial<OpenAiAudioDoubleOptions>,
  ) {
    this.options = { keys: ['test-key'], script: [], transcriptionMs: 0, firstAudioMs: 0, chunkMs: 100, chunkIntervalMs: 0, msPerChar: 20, sse: true, ...options };
  }

  static async start(options: Partial<OpenAiAudioDoubleOptions> = {}): Promise<OpenAiAudioDouble> {
    let double: OpenAiAudioDouble | undefined;
    const { server, url } = await listen((request, response) => void double!.handle(request, response));
    double = new OpenAiAudioDouble(server, `${url}/v1`, options);
    return double;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const json = (status: number, value: unknown): void => void response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const seen: OpenAiSeenRequest = { path: request.url ?? '', headers: request.headers, fields: {}, aborted: false };
    this.seen.push(seen);
    response.on('close', () => (seen.aborted = !response.writableFinished));
    const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!key || !this.options.keys.includes(key)) return json(401, rejection(key));
    if (this.options.failWith) return json(this.options.failWith, { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } });
    if (request.method === 'POST' && request.url === '/v1/audio/transcriptions') return this.transcribe(request, body, seen, json, response);
    if (request.method === 'POST' && request.url === '/v1/audio/speech') return this.speak(body, seen, json, response);
    return json(404, { error: { message: `Invalid URL (${request.method} ${request.url})`, type: 'invalid_request_error', param: null, code: null } });
  }

  private async transcribe(request: IncomingMessage, body: Buffer, seen: OpenAiSeenRequest, json: (status: number, value: unknown) => void, response: ServerResponse): Promise<void> {
    let form: FormData;
    try {
      form = await new Request('http://double/', { method: 'POST', headers: { 'content-type': request.headers['content-type'] ?? '' }, body: new Uint8Array(body) }).formData();
    } catch {
      return json(400, { error: { message: 'Could not parse multipart form', type: 'invalid_request_error', param: null, code: null } });
    }
    const fields: Record<string, unknown> = {};
    for (const [name, value] of form.entries()) {
      const taken = typeof value === 'string' ? value : value.size;
      fields[name] = name.endsWith('[]') ? [...((fields[name] as unknown[]) ?? []), taken] : taken;
    }
    seen.fields = fields;
    const file = form.get('file');
    if (!(file instanceof Blob)) return json(400, { error: { message: "Missing required parameter: 'file'.", type: 'invalid_request_error', param: 'file', code: null } });
    if (typeof fields['model'] !== 'string') return json(400, { error: { message: "Missing required parameter: 'model'.", type: 'invalid_request_error', param: 'model', code: null } });
    let wav: ReturnType<typeof parseWav>;
    try {
      wav = parseWav(new Uint8Array(await file.arrayBuffer()));
    } catch {
      return json(400, { error: { message: 'Invalid file format.', type: 'invalid_request_error', param: 'file', code: null } });
    }
    seen.sampleRate = wav.sampleRate;
    const durationS = wav.samples.length / wav.sampleRate;
    if (durationS < 0.1) return json(400, { error: { message: 'Audio file is too short. Minimum audio length is 0.1 seconds.', type: 'invalid_request_error', param: 'file', code: 'audio_too_short' } });
    await sleep(this.options.transcriptionMs);
    const text = this.options.script[this.scriptIndex++] ?? 'hello';
    const format = fields['response_format'] ?? 'json';
    if (format === 'text') return void response.writeHead(200, { 'content-type': 'text/plain' }).end(`${text}\n`);
    if (format !== 'verbose_json') return json(200, { text });
    const spoken = text.split(/\s+/).filter(Boolean);
    const granularities = (fields['timestamp_granularities[]'] as string[] | undefined) ?? [];
    const words = spoken.map((word, index) => ({ word: word.replace(/[.,!?]+$/, ''), start: (index * durationS) / spoken.length, end: ((index + 1) * durationS) / spoken.length }));
    json(200, { task: 'transcribe', language: 'english', duration: durationS, text, segments: [], ...(granularities.includes('word') ? { words } : {}) });
  }

  private async speak(body: Buffer, seen: OpenAiSeenRequest, json: (status: number, value: unknown) => void, response: ServerResponse): Promise<void> {
    let request: Record<string, unknown>;
    try {
      request = JSON.parse(body.toString()) as Record<string, unknown>;
    } catch {
      return json(400, { error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', param: null, code: null } });
    }
    seen.fields = request;
    for (const name of ['model', 'input', 'voice']) {
      if (typeof request[name] !== 'string' || !request[name]) return json(400, { error: { message: `Missing required parameter: '${name}'.`, type: 'invalid_request_error', param: name, code: null } });
    }
    const format = request['response_format'] ?? 'mp3';
    if (format !== 'pcm' && format !== 'wav') return json(400, { error: { message: `this double speaks pcm and wav only, not ${String(format)}`, type: 'invalid_request_error', param: 'response_format', code: null } });
    const sse = request['stream_format'] === 'sse';
    if (sse && !this.options.sse) return json(400, { error: { message: 'stream_format sse is not supported for this model.', type: 'invalid_request_error', param: 'stream_format', code: null } });
    const { samples } = spokenAudio(String(request['input']), 24000, this.options.msPerChar);
    const audio = format === 'wav' ? Buffer.from(encodeWav(samples, 24000)) : wireBytes(samples, 'pcm16');
    await sleep(this.options.firstAudioMs);
    response.writeHead(200, { 'content-type': sse ? 'text/event-stream' : format === 'wav' ? 'audio/wav' : 'audio/pcm', 'transfer-encoding': 'chunked' });
    let sent = 0;
    for (const piece of pieces(audio, Math.round(24000 * (this.options.chunkMs / 1000)) * 2)) {
      if (response.destroyed) return;
      response.write(sse ? `data: ${JSON.stringify({ type: 'speech.audio.delta', audio: piece.toString('base64') })}\n\n` : piece);
      if (this.options.dropAfterChunks !== undefined && ++sent >= this.options.dropAfterChunks) {
        this.options.dropAfterChunks = undefined;
        response.socket?.destroy();
        return;
      }
      await sleep(this.options.chunkIntervalMs);
    }
    if (sse) response.write(`data: ${JSON.stringify({ type: 'speech.audio.done', usage: { input_tokens: 10, output_tokens: 100, total_tokens: 110 } })}\n\n`);
    response.end();
  }
}
