/**
 * A protocol double of OpenAI's audio API (`POST /v1/audio/transcriptions`, `POST /v1/audio/speech`), written from
 * its API reference: Bearer keys (a wrong one is 401 `invalid_api_key`), multipart transcription requests answered
 * in `json`, `text` or `verbose_json` (with `words` for `timestamp_granularities[]=word`), speech as a streamed body
 * (`pcm`: 24 kHz 16-bit mono). Speech is a tone of 60 ms per character; the first bytes come after `firstAudioMs`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface TranscriptionRequest {
  model: string;
  responseFormat: string;
  granularities: string[];
  prompt?: string;
  language?: string;
  fileBytes: number;
}

export interface SpeechRequestSeen {
  model: string;
  voice: string;
  input: string;
  responseFormat: string;
  /** False when the client went away before the whole body was sent (a cancelled utterance). */
  completed: boolean;
  /** True once the double stopped sending, whole or not. */
  ended: boolean;
  traceparent?: string;
}

export interface OpenAiAudioDouble {
  url: string;
  transcriptions: TranscriptionRequest[];
  speech: SpeechRequestSeen[];
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startOpenAiAudioDouble(options: { apiKey: string; transcript: string; firstAudioMs?: number; msPerCharacter?: number }): Promise<OpenAiAudioDouble> {
  const transcriptions: TranscriptionRequest[] = [];
  const speech: SpeechRequestSeen[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.headers.authorization !== `Bearer ${options.apiKey}`) {
        await bodyOf(request);
        return send(401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
      }
      const raw = await bodyOf(request);
      if (request.method === 'POST' && request.url === '/v1/audio/transcriptions') {
        const form = await new Request('http://double/', { method: 'POST', headers: { 'content-type': request.headers['content-type'] ?? '' }, body: new Uint8Array(raw) }).formData();
        const file = form.get('file');
        const seen: TranscriptionRequest = {
          model: String(form.get('model')),
          responseFormat: String(form.get('response_format') ?? 'json'),
          granularities: form.getAll('timestamp_granularities[]').map(String),
          ...(form.get('prompt') ? { prompt: String(form.get('prompt')) } : {}),
          ...(form.get('language') ? { language: String(form.get('language')) } : {}),
          fileBytes: file instanceof Blob ? file.size : 0,
        };
        transcriptions.push(seen);
        if (!(file instanceof Blob)) return send(400, { error: { message: "'file' is a required property", type: 'invalid_request_error', param: 'file', code: null } });
        const words = options.transcript.split(/\s+/).map((word, index) => ({ word, start: index * 0.4, end: index * 0.4 + 0.3 }));
        if (seen.responseFormat === 'text') {
          response.writeHead(200, { 'content-type': 'text/plain' });
          return response.end(`${options.transcript}\n`);
        }
        if (seen.responseFormat === 'verbose_json') {
          return send(200, {
            task: 'transcribe',
            language: 'english',
            duration: words.length * 0.4,
            text: options.transcript,
            ...(seen.granularities.includes('word') ? { words } : {}),
            segments: [{ id: 0, start: 0, end: words.length * 0.4, text: options.transcript }],
          });
        }
        return send(200, { text: options.transcript });
      }
      if (request.method === 'POST' && request.url === '/v1/audio/speech') {
        const body = JSON.parse(raw.toString()) as { model?: string; voice?: string; input?: string; response_format?: string };
        if (!body.input || !body.model || !body.voice) {
          return send(400, { error: { message: 'model, voice and input are required', type: 'invalid_request_error', param: null, code: null } });
        }
        const seen: SpeechRequestSeen = {
          model: body.model,
          voice: body.voice,
          input: body.input,
          responseFormat: body.response_format ?? 'mp3',
          completed: false,
          ended: false,
          ...(typeof request.headers.traceparent === 'string' ? { traceparent: request.headers.traceparent } : {}),
        };
        speech.push(seen);
        response.writeHead(200, { 'content-type': 'audio/pcm', 'transfer-encoding': 'chunked' });
        await wait(options.firstAudioMs ?? 0);
        const samples = Math.round((body.input.length * (options.msPerCharacter ?? 60) * 24_000) / 1000);
        const pcm = Buffer.alloc(samples * 2);
        for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 200 * i) / 24_000) * 8000), i * 2);
        for (let offset = 0; offset < pcm.length && !response.destroyed; offset += 4800) {
          response.write(pcm.subarray(offset, offset + 4800));
          await wait(5);
        }
        seen.completed = !response.destroyed;
        seen.ended = true;
        return response.end();
      }
      if (request.method === 'GET' && request.url === '/v1/models') {
        return send(200, { object: 'list', data: [{ id: 'gpt-4o-mini-tts', object: 'model', created: 1, owned_by: 'system' }, { id: 'whisper-1', object: 'model', created: 1, owned_by: 'system' }] });
      }
      send(404, { error: { message: `Invalid URL (${request.method} ${request.url})`, type: 'invalid_request_error', param: null, code: null } });
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    transcriptions,
    speech,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
