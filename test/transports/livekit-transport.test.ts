import { describe, expect, it, vi } from 'vitest';
import { firstValueFrom, toArray } from 'rxjs';
import { jwtVerify } from 'jose';
import { createFrame } from '../../src/audio/frame.js';
import { createAgentToken, LiveKitTransport } from '../../src/transports/livekit/index.js';
import { RoomDouble } from '../support/livekit-room-double.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));
const tone = (ms: number, rate: number) =>
  createFrame(Int16Array.from({ length: (rate * ms) / 1000 }, (_, i) => Math.round(8000 * Math.sin(i / 5))), rate);

describe('LiveKit transport', () => {
  it("passes the caller's audio through and ends the call when the caller leaves", async () => {
    const room = new RoomDouble();
    const transport = new LiveKitTransport(room);
    const frames = firstValueFrom(transport.audio$.pipe(toArray()));
    const events = firstValueFrom(transport.events$.pipe(toArray()));
    room.callerAudio.next(tone(20, 16000));
    room.dtmf.next('5');
    room.data.next({ type: 'mode', mode: 'balanced' });
    room.callerAudio.complete();
    room.left.next('caller left the room');
    room.left.complete();
    room.data.complete();
    room.dtmf.complete();
    expect((await frames).map((f) => f.samples.length)).toEqual([320]);
    expect(await events).toEqual([
      { type: 'connected' },
      { type: 'dtmf', digit: '5' },
      { type: 'message', data: { type: 'mode', mode: 'balanced' } },
      { type: 'hangup', reason: 'caller left the room' },
    ]);
  });

  it('publishes agent audio one frame at a time, resampled to the room rate', async () => {
    const room = new RoomDouble();
    const transport = new LiveKitTransport(room);
    transport.play(tone(20, 16000));
    transport.play(tone(20, 16000));
    await vi.waitFor(() => expect(room.published).toHaveLength(1));
    await tick();
    expect(room.published).toHaveLength(1);
    expect(room.published[0]!.sampleRate).toBe(24000);
    room.drainOne();
    await vi.waitFor(() => expect(room.published).toHaveLength(2));
    expect(room.published[1]!.samples.length).toBeGreaterThan(400);
  });

  it('drops queued agent audio at once on clear and counts played audio from there', async () => {
    const room = new RoomDouble();
    const transport = new LiveKitTransport(room);
    for (let i = 0; i < 5; i += 1) transport.play(tone(20, 24000));
    await tick();
    expect(room.published).toHaveLength(1);
    room.queued = 5; // 15 of the first 20 ms have been sent
    expect(transport.playedMs()).toBe(15);
    transport.clear();
    room.drainOne();
    await tick();
    expect(room.published).toHaveLength(1);
    expect(room.queuedMs()).toBe(0);
    expect(transport.playedMs()).toBe(0);
    transport.play(tone(20, 24000));
    await tick();
    expect(room.published).toHaveLength(2);
  });

  it("takes the call's trace context from the caller's traceparent attribute", () => {
    const room = new RoomDouble();
    const transport = new LiveKitTransport(room);
    expect(transport.traceContext.traceparent).toBeUndefined();
    room.attributes = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    expect(transport.traceContext.traceparent).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  });

  it('sends captions as data messages and disconnects on hangup', async () => {
    const room = new RoomDouble();
    const transport = new LiveKitTransport(room);
    transport.send({ type: 'transcript', text: 'hello' });
    transport.hangup();
    await tick();
    expect(room.sent).toEqual([{ type: 'transcript', text: 'hello' }]);
    expect(room.disconnected).toBe(true);
  });
});

describe('LiveKit agent token', () => {
  it('grants join, publish and subscribe in one room, signed with the API secret', async () => {
    const token = await createAgentToken({ apiKey: 'APIkey', apiSecret: 'a-secret-of-enough-length-123456', room: 'demo', identity: 'shoal-agent' });
    const { payload } = await jwtVerify(token, new TextEncoder().encode('a-secret-of-enough-length-123456'));
    expect(payload.sub).toBe('shoal-agent');
    expect(payload.iss).toBe('APIkey');
    expect(payload.video).toMatchObject({ room: 'demo', roomJoin: true, canPublish: true, canSubscribe: true, canUpdateOwnMetadata: true });
    expect(payload['kind']).toBe('agent');
    await expect(jwtVerify(token, new TextEncoder().encode('wrong-secret-wrong-secret-wrong!'))).rejects.toThrow();
  });
});
