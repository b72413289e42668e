/**
 * The official @deepgram/sdk keeps a silent /v1/listen socket open with KeepAlive for 5 s on a `shoal serve`
 * whose idle window is 1 s, while a socket sending nothing is closed 1011 NET-0001 (Deepgram's idle close).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billed, clip, openLive as openSdkLive, transcriptOf } from '../support/deepgram-sdk-client.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';

const idleTimeoutMs = 1000;
const credit = 10_000_000;
let serve: ServeProcess;
const openLive = (key: string, query: Record<string, unknown>) => openSdkLive(serve.url, key, query);

beforeAll(async () => {
  serve = await startServeProcess({ args: ['--listen-idle-timeout', String(idleTimeoutMs)] });
}, 120_000);

afterAll(async () => {
  await serve?.stop();
});

describe('@deepgram/sdk KeepAlive against shoal serve', () => {
  it('KeepAlive holds a silent socket open for five idle windows; without it the socket closes 1011 NET-0001', async () => {
    const user = await serve.addUser('keepalive', credit);
    const kept = await openLive(user.key, {});
    const idle = await openLive(user.key, {});
    const started = Date.now();
    while (Date.now() - started < 5 * idleTimeoutMs) {
      kept.socket.sendKeepAlive({ type: 'KeepAlive' });
      await new Promise((resolve) => setTimeout(resolve, idleTimeoutMs / 3));
    }
    const idleClose = await idle.closed;
    expect(idleClose.code).toBe(1011);
    expect(idleClose.reason).toMatch(/^NET-0001/);
    const word = clip('dev_01.wav');
    await kept.send(word);
    kept.socket.sendCloseStream({ type: 'CloseStream' });
    expect(await kept.closed).toMatchObject({ code: 1000 });
    expect(transcriptOf(kept.messages)).toBe('yes');
    await expect.poll(() => serve.balance(user.id), { timeout: 5000 }).toBe(credit - billed(word.length));
  }, 60_000);

});
