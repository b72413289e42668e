import { decode } from '@msgpack/msgpack';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidRequestError, MalformedResponseError, multiSpeakerRequest, SpeechClient } from '../../src/client/index.js';
import { startFakeServer, type FakeServer } from '../support/client-fakes.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function echoServer() {
  return startFakeServer({ http: (_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(Buffer.from('RIFFaudio')) });
}

describe('TTS over HTTP', () => {
  it('sends JSON without references, with every given field and the model header', async () => {
    server = await echoServer();
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    const request = { text: 'Hello', format: 'wav' as const, sample_rate: 16000, prosody: { speed: 1.2 }, latency: 'balanced' as const, features: ['quality-guard'] };
    const audio = await client.tts(request, { model: 's2-pro' }).collect();
    expect(Buffer.from(audio).toString()).toBe('RIFFaudio');
    const seen = server.requests[0]!;
    expect(seen.url).toBe('/v1/tts');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers.model).toBe('s2-pro');
    expect(JSON.parse(seen.body.toString())).toEqual(request);
  });

  it('switches to msgpack when references are present, sending the audio as raw bytes', async () => {
    server = await echoServer();
    const sample = Buffer.from([1, 2, 3, 255]);
    await new SpeechClient({ baseUrl: server.url, apiKey: 'k' }).tts({ text: 'Hi', references: [{ audio: sample, text: 'sample' }] }).collect();
    const seen = server.requests[0]!;
    expect(seen.headers['content-type']).toBe('application/msgpack');
    const body = decode(seen.body) as { text: string; references: { audio: Uint8Array; text: string }[] };
    expect(body.text).toBe('Hi');
    expect(Buffer.from(body.references[0]!.audio)).toEqual(sample);
  });

  it('refuses references with a forced JSON encoding before sending anything', async () => {
    server = await echoServer();
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    expect(() => client.tts({ text: 'Hi', references: [{ audio: new Uint8Array(1), text: 'x' }] }, { encoding: 'json' })).toThrow(InvalidRequestError);
    expect(server.requests).toHaveLength(0);
  });

  it('builds multi-speaker text and reference ids from turns', () => {
    const request = multiSpeakerRequest([
      { speaker: 'alice-id', text: 'Hi Bob.' },
      { speaker: 'bob-id', text: 'Hi Alice.' },
      { speaker: 'bob-id', text: 'How are you?' },
      { speaker: 'alice-id', text: 'Fine.' },
    ]);
    expect(request.text).toBe('<|speaker:0|>Hi Bob.<|speaker:1|>Hi Alice. How are you?<|speaker:0|>Fine.');
    expect(request.reference_id).toEqual(['alice-id', 'bob-id']);
  });

  it('builds zero-shot multi-speaker references, one inner array per speaker', () => {
    const a = { audio: new Uint8Array([1]), text: 'a' };
    const b = { audio: new Uint8Array([2]), text: 'b' };
    const request = multiSpeakerRequest([{ speaker: 'A', text: 'one' }, { speaker: 'B', text: 'two' }], { A: [a], B: [b] });
    expect(request.references).toEqual([[a], [b]]);
    expect(() => multiSpeakerRequest([{ speaker: 'C', text: 'x' }], { A: [a] })).toThrow(/no reference audio for speaker\(s\) C/);
  });
});

describe('TTS with timestamps (SSE)', () => {
  it('applies the cumulative alignment rule and makes word times absolute', async () => {
    const events = [
      { audio_base64: Buffer.from('A1').toString('base64'), content: 'Hello world.', alignment: { segments: [{ text: 'Hello', start: 0, end: 0.4 }], audio_duration: 0.4 }, chunk_seq: 0, chunk_audio_offset_sec: 0 },
      { audio_base64: '', content: 'Hello world.', alignment: { segments: [{ text: 'Hello', start: 0, end: 0.4 }, { text: 'world', start: 0.4, end: 0.9 }], audio_duration: 0.9 }, chunk_seq: 0, chunk_audio_offset_sec: 0 },
      { audio_base64: Buffer.from('B1').toString('base64'), content: 'Bye.', alignment: { segments: [{ text: 'Bye', start: 0.1, end: 0.5 }], audio_duration: 0.6 }, chunk_seq: 1, chunk_audio_offset_sec: 0.9 },
    ];
    server = await startFakeServer({
      http: async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of events) {
          const text = `data: ${JSON.stringify(event)}\n\n`;
          res.write(text.slice(0, 10));
          await new Promise((r) => setTimeout(r, 5));
          res.write(text.slice(10));
        }
        res.end();
      },
    });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    const chunks = [];
    for await (const chunk of client.ttsWithTimestamps({ text: 'Hello world. Bye.' })) chunks.push(chunk);
    expect(server.requests[0]!.url).toBe('/v1/tts/stream/with-timestamp');
    expect(chunks.map((chunk) => Buffer.from(chunk.audio).toString())).toEqual(['A1', '', 'B1']);
    expect(chunks[1]!.words.map((word) => word.text)).toEqual(['Hello', 'world']);
    expect(chunks[2]!.words).toEqual([{ text: 'Bye', startMs: 1000, endMs: 1400 }]);
    expect(chunks[2]!.allWords.map((word) => `${word.text}@${word.startMs}`)).toEqual(['Hello@0', 'world@400', 'Bye@1000']);
    expect(chunks[2]!.offset).toBe(0.9);
  });

  it('throws MalformedResponseError for an event that is not JSON', async () => {
    server = await startFakeServer({ http: (_req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {not json\n\n') });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k' });
    const run = async () => {
      for await (const _chunk of client.ttsWithTimestamps({ text: 'x' })) void _chunk;
    };
    await expect(run()).rejects.toBeInstanceOf(MalformedResponseError);
  });
});
