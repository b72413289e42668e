/**
 * Opus on /v1/listen with the official @deepgram/sdk against a real `shoal serve`: an Ogg Opus stream made by
 * Shoal's own encoder and a WebM Opus stream recorded by Chromium's MediaRecorder, each sent live in small
 * pieces that split its pages and blocks across messages; a stream that is not Opus; the prerecorded POST and
 * OpenAI's transcriptions route with the WebM file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeepgramClient } from '@deepgram/sdk';
import OpenAI, { toFile } from 'openai';
import { WebSocket } from 'ws';
import { OggOpusStreamEncoder } from '../../src/audio/index.js';
import { asrMicrosPerSecond, clip, openLive, results, transcriptOf, type Live } from '../support/deepgram-sdk-client.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';

const credit = 10_000_000;
let serve: ServeProcess;
const webm = readFileSync(join(import.meta.dirname, '../fixtures/audio/dev_12-mediarecorder.webm'));

/** A clip of test/fixtures/human, followed by `silenceS` of silence, as Ogg Opus from the project's encoder at 16 kHz. */
function oggOpus(name: string, silenceS: number): Buffer {
  const pcm = Buffer.concat([clip(name), Buffer.alloc(32000 * silenceS)]);
  const encoder = new OggOpusStreamEncoder({ sampleRate: 16000, maxPacketsPerPage: 10 });
  const pages = [...encoder.write(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2)), ...encoder.end()];
  return Buffer.concat(pages);
}

/** Sends `bytes` in `pieceBytes` messages as the SDK sends media, a few ms apart. */
async function sendInPieces(live: Live, bytes: Buffer, pieceBytes: number): Promise<void> {
  for (let at = 0; at < bytes.length; at += pieceBytes) {
    live.socket.sendMedia(bytes.subarray(at, at + pieceBytes));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

beforeAll(async () => {
  serve = await startServeProcess();
}, 120_000);

afterAll(async () => {
  await serve?.stop();
});

describe('@deepgram/sdk live with encoding=opus', () => {
  it('recognises an Ogg Opus stream sent in 500-byte pieces and bills its audio seconds', async () => {
    const user = await serve.addUser('ogg', credit);
    const stream = oggOpus('dev_08.wav', 1);
    const live = await openLive(serve.url, user.key, { encoding: 'opus', sample_rate: undefined, endpointing: 'false', keyterm: ['four one nine two'] });
    await sendInPieces(live, stream, 500);
    live.socket.sendCloseStream({ type: 'CloseStream' });
    expect(await live.closed).toMatchObject({ code: 1000 });
    expect(transcriptOf(live.messages)).toBe('four one nine two');
    const metadata = live.messages.at(-1)!;
    expect(metadata.type).toBe('Metadata');
    // 20 ms packets of 2.853 s of speech and 1 s of silence (the encoder pads the last one).
    expect(metadata.duration).toBeGreaterThanOrEqual(3.85);
    expect(metadata.duration).toBeLessThanOrEqual(3.92);
    await expect.poll(() => serve.balance(user.id), { timeout: 5000 }).toBe(credit - Math.ceil(metadata.duration * asrMicrosPerSecond));
  }, 30_000);

  it("recognises Chromium MediaRecorder's WebM Opus, with encoding=opus and with no encoding (as browsers send it)", async () => {
    for (const query of [{ encoding: 'opus', sample_rate: undefined }, { encoding: undefined, sample_rate: undefined }]) {
      const user = await serve.addUser(`webm-${query.encoding ?? 'none'}`, credit);
      const live = await openLive(serve.url, user.key, { ...query, interim_results: 'true', endpointing: 300 });
      await sendInPieces(live, webm, 333);
      live.socket.sendFinalize({ type: 'Finalize' });
      live.socket.sendCloseStream({ type: 'CloseStream' });
      expect(await live.closed).toMatchObject({ code: 1000 });
      expect(transcriptOf(live.messages)).toMatch(/testing routine/);
      expect(results(live.messages).some((message) => !message.is_final)).toBe(true);
      const metadata = live.messages.at(-1)!;
      expect(metadata.duration).toBeGreaterThan(3.1);
      await expect.poll(() => serve.balance(user.id), { timeout: 5000 }).toBe(credit - Math.ceil(metadata.duration * asrMicrosPerSecond));
    }
  }, 30_000);

  it('a stream that is not Ogg or WebM Opus closes 1008 DATA-0000 naming what is taken, billed nothing', async () => {
    const user = await serve.addUser('not-opus', credit);
    const live = await openLive(serve.url, user.key, { encoding: 'opus', sample_rate: undefined });
    live.socket.sendMedia(readFileSync(join(import.meta.dirname, '../fixtures/human/dev_08.wav')).subarray(0, 4000));
    const closed = await live.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/^DATA-0000: encoding=opus takes an Ogg Opus or WebM Opus stream/);
    expect(await serve.balance(user.id)).toBe(credit);
  }, 30_000);

  it('encodings with no decoder here are still refused at the upgrade, naming what is accepted', async () => {
    const user = await serve.addUser('flac', credit);
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(`${serve.wsUrl}/v1/listen?encoding=flac`, { headers: { authorization: `Token ${user.key}` } });
      ws.on('open', () => reject(new Error('opened with encoding=flac')));
      ws.on('error', () => undefined);
      ws.on('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      });
    });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).err_msg).toMatch(/linear16, mulaw or alaw with sample_rate, opus \(an Ogg or WebM Opus stream\)/);
  }, 30_000);
});

describe('@deepgram/sdk prerecorded Opus', () => {
  it('transcribeFile takes Ogg Opus and WebM Opus bodies, billed once each', async () => {
    const user = await serve.addUser('prerecorded-opus', credit);
    const client = new DeepgramClient({ apiKey: user.key, baseUrl: serve.url });
    const ogg = (await client.listen.v1.media.transcribeFile(oggOpus('dev_08.wav', 0.5), { model: 'nova-3', encoding: 'opus', keyterm: ['four one nine two'] } as never)) as any;
    expect(ogg.results.channels[0].alternatives[0].transcript).toBe('four one nine two');
    const fromWebm = (await client.listen.v1.media.transcribeFile(webm, { model: 'nova-3' })) as any;
    expect(fromWebm.results.channels[0].alternatives[0].transcript).toMatch(/testing routine/);
    const spent = Math.ceil(ogg.metadata.duration * asrMicrosPerSecond) + Math.ceil(fromWebm.metadata.duration * asrMicrosPerSecond);
    expect(await serve.balance(user.id)).toBe(credit - spent);
  }, 30_000);

  it("OpenAI's transcriptions route takes the MediaRecorder WebM too (the official openai client)", async () => {
    const user = await serve.addUser('openai-webm', credit);
    const openai = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: user.key, maxRetries: 0 });
    const transcript = await openai.audio.transcriptions.create({ file: await toFile(webm, 'recording.webm', { type: 'audio/webm' }), model: 'whisper-1' });
    expect(transcript.text).toMatch(/testing routine/);
  }, 30_000);
});
