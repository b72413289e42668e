/**
 * The official `@deepgram/sdk` against two `shoal serve` processes on one PostgreSQL: live `/v1/listen` sockets on
 * both instances bill the audio seconds each received on the shared wallet, and sockets racing on both instances
 * for more audio than the balance covers never take it below zero.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billed, clip, openLive, transcriptOf } from '../support/deepgram-sdk-client.js';
import { startServeFleet, type ServeFleet } from '../support/serve-fleet.js';

let fleet: ServeFleet;
beforeAll(async () => {
  fleet = await startServeFleet();
}, 120_000);
afterAll(async () => fleet?.close());

/** One live socket on `baseUrl`: `audio` sent, then CloseStream; its messages and close. */
async function listenOnce(baseUrl: string, key: string, audio: Buffer) {
  const live = await openLive(baseUrl, key, { endpointing: 'false' });
  await live.send(audio, 5);
  live.socket.sendCloseStream({ type: 'CloseStream' });
  return { closed: await live.closed, transcript: transcriptOf(live.messages) };
}

describe('live recognition on two instances on one PostgreSQL', () => {
  it('a socket on each instance is billed the audio it received, once, on the shared wallet', async () => {
    const credit = 10_000_000;
    const key = await fleet.userWith('both', credit);
    const speech = clip('dev_12.wav');
    const digits = clip('dev_08.wav');
    const [a, b] = await Promise.all([listenOnce(fleet.instances[0]!.url, key, speech), listenOnce(fleet.instances[1]!.url, key, digits)]);
    expect(a.closed.code).toBe(1000);
    expect(b.closed.code).toBe(1000);
    expect(a.transcript).toMatch(/testing routine/);
    expect(b.transcript).toMatch(/^(four|for) one nine two$/);
    await fleet.holdsReturned();
    expect(await fleet.balance('both')).toBe(credit - billed(speech.length) - billed(digits.length));
  }, 60_000);

  it('sockets racing on both instances for more audio than the balance covers stop at it, never below zero', async () => {
    const speech = clip('dev_12.wav');
    // Enough for one clip and a half: the second socket's audio runs out of credit.
    const credit = Math.floor(billed(speech.length) * 1.5);
    const key = await fleet.userWith('racer', credit);
    const closes = await Promise.all(fleet.instances.map((instance) => listenOnce(instance.url, key, speech).then((result) => result.closed)));
    const refused = closes.filter((close) => close.code !== 1000);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const close of refused) expect(close).toMatchObject({ code: 1008, reason: expect.stringMatching(/^INSUFFICIENT_CREDIT/) });
    await fleet.holdsReturned();
    const left = await fleet.balance('racer');
    expect(left).toBeGreaterThanOrEqual(0);
    expect(left).toBeLessThan(credit - billed(speech.length) + 1);
  }, 60_000);
});
