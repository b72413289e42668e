/**
 * The official @deepgram/sdk, as it is, against a real `shoal serve` (SQLite) on /v1/listen: live recognition
 * of a real recording (interims, finals, UtteranceEnd, Finalize), a bad key, the browser's subprotocol, and
 * prerecorded transcribeFile; each live socket billed exactly by the audio seconds it sent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeepgramClient } from '@deepgram/sdk';
import { WebSocket } from 'ws';
import { asrMicrosPerSecond, billed, clip, openLive as openSdkLive, results, transcriptOf } from '../support/deepgram-sdk-client.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';

const credit = 10_000_000;
let serve: ServeProcess;
const openLive = (key: string, query: Record<string, unknown>) => openSdkLive(serve.url, key, query);

beforeAll(async () => {
  serve = await startServeProcess();
}, 120_000);

afterAll(async () => {
  await serve?.stop();
});

describe('@deepgram/sdk live against shoal serve', () => {
  it('sends interims then finals, SpeechStarted, UtteranceEnd and Metadata, and bills the audio seconds sent', async () => {
    const user = await serve.addUser('live', credit);
    const speech = Buffer.concat([clip('dev_12.wav'), Buffer.alloc(32000 * 1.6)]);
    const live = await openLive(user.key, { interim_results: 'true', utterance_end_ms: '1000', vad_events: 'true', endpointing: 300 });
    await live.send(speech);
    live.socket.sendCloseStream({ type: 'CloseStream' });
    expect(await live.closed).toMatchObject({ code: 1000 });

    const types = live.messages.map((message) => message.type);
    expect(types[0]).toBe('SpeechStarted');
    const all = results(live.messages);
    const firstFinal = all.findIndex((message) => message.is_final);
    expect(all.slice(0, firstFinal).length).toBeGreaterThan(0); // interims before the final
    expect(all[firstFinal]).toMatchObject({ speech_final: true, from_finalize: false, start: 0, channel_index: [0, 1] });
    const words = all[firstFinal]!.channel.alternatives[0].words;
    expect(words[0]).toMatchObject({ word: 'this', confidence: 1, punctuated_word: 'this' });
    expect(words[words.length - 1].end).toBeLessThanOrEqual(all[firstFinal]!.start + all[firstFinal]!.duration);
    expect(transcriptOf(live.messages)).toMatch(/testing routine/);
    const utteranceEnd = live.messages.find((message) => message.type === 'UtteranceEnd')!;
    expect(utteranceEnd.last_word_end).toBe(words[words.length - 1].end);
    expect(types.indexOf('UtteranceEnd')).toBeGreaterThan(types.indexOf('Results'));
    const metadata = live.messages.at(-1)!;
    expect(metadata).toMatchObject({ type: 'Metadata', channels: 1, duration: speech.length / 32000 });
    expect(metadata.request_id).toBe(all[0]!.metadata.request_id);

    await expect.poll(() => serve.balance(user.id), { timeout: 5000 }).toBe(credit - billed(speech.length));
  }, 60_000);

  it('Finalize flushes the utterance in progress as a final from_finalize (endpointing=false)', async () => {
    const user = await serve.addUser('finalize', credit);
    const digits = clip('dev_08.wav');
    const live = await openLive(user.key, { endpointing: 'false', keyterm: ['four one nine two'] });
    await live.send(digits);
    live.socket.sendFinalize({ type: 'Finalize' });
    await expect.poll(() => results(live.messages).length, { timeout: 20_000 }).toBe(1);
    const [final] = results(live.messages);
    expect(final).toMatchObject({ is_final: true, speech_final: false, from_finalize: true, start: 0, duration: digits.length / 32000 });
    expect(final!.channel.alternatives[0].transcript).toBe('four one nine two');
    live.socket.sendCloseStream({ type: 'CloseStream' });
    expect(await live.closed).toMatchObject({ code: 1000 });
    await expect.poll(() => serve.balance(user.id), { timeout: 5000 }).toBe(credit - billed(digits.length));
  }, 60_000);

  it('a bad key is refused at the upgrade with 401 and nothing opens', async () => {
    const client = new DeepgramClient({ apiKey: 'sk_wrong', baseUrl: serve.url, reconnect: false });
    const socket = await client.listen.v1.connect({ model: 'nova-3', reconnectAttempts: 0 } as never);
    const outcome = new Promise<string>((resolve) => {
      socket.on('open', () => resolve('open'));
      socket.on('error', () => resolve('error'));
      socket.on('close', () => resolve('close'));
    });
    socket.connect();
    expect(await outcome).not.toBe('open');
    socket.close();
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(`${serve.wsUrl}/v1/listen`, { headers: { authorization: 'Token sk_wrong' } });
      ws.on('open', () => reject(new Error('opened with a bad key')));
      ws.on('error', () => undefined);
      ws.on('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      });
    });
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ err_code: 'INVALID_AUTH' });
  }, 30_000);

  it("a browser's token subprotocol authenticates: Sec-WebSocket-Protocol: token, <key>", async () => {
    const user = await serve.addUser('browser', credit);
    const ws = new WebSocket(`${serve.wsUrl}/v1/listen?encoding=linear16&sample_rate=16000`, ['token', user.key]);
    await new Promise((resolve, reject) => {
      ws.on('open', resolve);
      ws.on('error', reject);
    });
    expect(ws.protocol).toBe('token');
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ type: 'CloseStream' }));
    expect(await closed).toBe(1000);
  }, 30_000);
});

describe('@deepgram/sdk prerecorded against shoal serve', () => {
  it('transcribeFile answers in Deepgram shape and bills the file once; a URL body is refused', async () => {
    const user = await serve.addUser('prerecorded', credit);
    const client = new DeepgramClient({ apiKey: user.key, baseUrl: serve.url });
    const file = readFileSync(join(import.meta.dirname, '../fixtures/human/dev_12.wav'));
    const response = (await client.listen.v1.media.transcribeFile(file, { model: 'nova-3' })) as any;
    const alternative = response.results.channels[0].alternatives[0];
    expect(alternative.transcript).toMatch(/testing routine/);
    expect(alternative.words.length).toBeGreaterThan(3);
    expect(response.metadata).toMatchObject({ channels: 1, duration: 3.13 });
    expect(await serve.balance(user.id)).toBe(credit - Math.ceil(3.13 * asrMicrosPerSecond));
    await expect(client.listen.v1.media.transcribeUrl({ url: 'https://example.com/a.wav' })).rejects.toMatchObject({ statusCode: 400 });
    expect(await serve.balance(user.id)).toBe(credit - Math.ceil(3.13 * asrMicrosPerSecond));
  }, 60_000);
});
