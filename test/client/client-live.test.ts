import type { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConnectionError,
  LiveSessionError,
  MalformedResponseError,
  PaymentRequiredError,
  RateLimitError,
  SpeechClient,
  type LiveEvent,
  type LiveTtsSession,
} from '../../src/client/index.js';
import { delay, fakeAudioOf, liveFrame, readLiveFrame, startFakeServer, type FakeServer } from '../support/client-fakes.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface LiveBehaviour {
  afterFinish: 'close' | 'reuse';
  /** Called on each flush/stop with the text to speak; returning 'drop' closes the socket abruptly instead. */
  onSpeak?: (text: string, connection: number, socket: WebSocket) => 'speak' | 'drop' | 'half-then-drop' | 'slow' | 'silent';
  onStart?: (connection: number, socket: WebSocket) => void;
}

/** A protocol-true fake of `/v1/tts/live`: audio of a text is its UTF-8 bytes, sent in two chunks. */
function fakeLive(behaviour: LiveBehaviour, log: string[][]) {
  return (socket: WebSocket, _request: unknown, connection: number) => {
    const events: string[] = [];
    log[connection] = events;
    let buffer = '';
    let chain = Promise.resolve();
    const speak = (text: string, final: boolean) => {
      chain = chain.then(async () => {
        const mode = behaviour.onSpeak?.(text, connection, socket) ?? 'speak';
        const audio = fakeAudioOf(text);
        if (mode === 'drop') return void socket.terminate();
        if (mode === 'silent') return;
        const half = Math.ceil(audio.length / 2);
        if (mode === 'slow') {
          for (let i = 0; i < audio.length; i++) {
            if (socket.readyState !== socket.OPEN) return;
            socket.send(liveFrame({ event: 'audio', audio: audio.subarray(i, i + 1), time: i }));
            await delay(30);
          }
        } else if (audio.length) {
          socket.send(liveFrame({ event: 'audio', audio: audio.subarray(0, half), time: 0 }));
          await delay(5);
          if (mode === 'half-then-drop') return void socket.terminate();
          socket.send(liveFrame({ event: 'audio', audio: audio.subarray(half), time: 10 }));
        }
        if (final) {
          socket.send(liveFrame({ event: 'finish', reason: 'stop' }));
          if (behaviour.afterFinish === 'close') socket.close(1000);
        }
      });
    };
    socket.on('message', (data) => {
      const event = readLiveFrame(data);
      events.push(event.event === 'text' ? `text:${event.text as string}` : String(event.event));
      if (event.event === 'start') behaviour.onStart?.(connection, socket);
      if (event.event === 'text') buffer += event.text as string;
      if (event.event === 'flush' || event.event === 'stop') {
        const text = buffer;
        buffer = '';
        speak(text, event.event === 'stop');
      }
    });
  };
}

async function drain(session: LiveTtsSession, into: LiveEvent[]) {
  for await (const event of session) into.push(event);
}

function spoken(events: LiveEvent[]): string {
  return events.map((event) => (event.type === 'audio' ? Buffer.from(event.audio).toString() : '')).join('');
}

const live = { utteranceIdleMs: 80, reconnectDelayMs: 20 };

describe('LiveTtsSession', () => {
  it('speaks flushed utterances in order and marks each end after the audio idle gap', async () => {
    const log: string[][] = [];
    server = await startFakeServer({ live: fakeLive({ afterFinish: 'close' }, log) });
    const client = new SpeechClient({ baseUrl: server.url, apiKey: 'k', live });
    const session = await client.live({ format: 'pcm', reference_id: 'voice-1' }, { model: 's1' });
    const events: LiveEvent[] = [];
    const draining = drain(session, events);
    session.send('Hello ');
    session.send('world.');
    const first = session.flush();
    session.send('Second one.');
    const second = session.flush();
    expect(await first).toMatchObject({ outcome: 'spoken', text: 'Hello world.', audioBytes: 12 });
    expect(await second).toMatchObject({ outcome: 'spoken', text: 'Second one.', audioBytes: 11 });
    session.close();
    await draining;
    expect(spoken(events)).toBe('Hello world.Second one.');
    const boundaries = events.filter((event) => event.type === 'utterance-end').map((event) => (event as { utterance: number }).utterance);
    expect(boundaries).toEqual([1, 2]);
    const firstEnd = events.findIndex((event) => event.type === 'utterance-end');
    expect(events.slice(0, firstEnd).every((event) => event.type !== 'audio' || event.utterance === 1)).toBe(true);
    expect(log[0]).toEqual(['start', 'text:Hello ', 'text:world.', 'flush', 'text:Second one.', 'flush']);
    expect(server.sockets).toHaveLength(1);
  });

  it.each(['close', 'reuse'] as const)('keeps working after finish when the server %ss the socket', async (afterFinish) => {
    const log: string[][] = [];
    server = await startFakeServer({ live: fakeLive({ afterFinish }, log) });
    const session = await new SpeechClient({ baseUrl: server.url, apiKey: 'k', live }).live();
    const events: LiveEvent[] = [];
    const draining = drain(session, events);
    session.send('First.');
    await session.stop();
    await delay(20);
    session.send('Again.');
    await session.stop();
    session.close();
    await draining;
    expect(spoken(events)).toBe('First.Again.');
    expect(events.filter((event) => event.type === 'finish')).toHaveLength(2);
    if (afterFinish === 'close') {
      expect(log).toEqual([['start', 'text:First.', 'stop'], ['start', 'text:Again.', 'stop']]);
    } else {
      expect(log).toEqual([['start', 'text:First.', 'stop', 'start', 'text:Again.', 'stop']]);
    }
  });

  it('reconnects when the socket closes mid-utterance and resends only the unspoken text', async () => {
    const log: string[][] = [];
    server = await startFakeServer({
      live: fakeLive({ afterFinish: 'close', onSpeak: (text, connection) => (connection === 0 && text === 'Two. ' ? 'drop' : 'speak') }, log),
    });
    const session = await new SpeechClient({ baseUrl: server.url, apiKey: 'k', live }).live();
    const events: LiveEvent[] = [];
    const draining = drain(session, events);
    session.send('One. ');
    const one = session.flush();
    session.send('Two. ');
    const two = session.flush();
    session.send('Three.');
    const three = session.flush();
    expect((await Promise.all([one, two, three])).map((result) => result.outcome)).toEqual(['spoken', 'spoken', 'spoken']);
    session.close();
    await draining;
    expect(spoken(events)).toBe('One. Two. Three.');
    expect(events.some((event) => event.type === 'reconnected')).toBe(true);
    expect(events.some((event) => event.type === 'utterance-restart')).toBe(false);
    expect(log[0]).toEqual(['start', 'text:One. ', 'flush', 'text:Two. ', 'flush']);
    expect(log[1]).toEqual(['start', 'text:Two. ', 'flush', 'text:Three.', 'flush']);
  });

  it('marks a partly spoken utterance as restarted after a drop, so no audio is counted twice', async () => {
    const log: string[][] = [];
    server = await startFakeServer({
      live: fakeLive({ afterFinish: 'close', onSpeak: (text, connection) => (connection === 0 && text === 'Two two. ' ? 'half-then-drop' : 'speak') }, log),
    });
    const session = await new SpeechClient({ baseUrl: server.url, apiKey: 'k', live }).live();
    const events: LiveEvent[] = [];
    const draining = drain(session, events);
    session.send('One. ');
    void session.flush();
    session.send('Two two. ');
    const two = session.flush();
    expect(await two).toMatchObject({ outcome: 'spoken', audioBytes: 9 });
    session.close();
    await draining;
    const restart = events.findIndex((event) => event.type === 'utterance-restart');
    expect(events[restart]).toEqual({ type: 'utterance-restart', utterance: 2, droppedBytes: 5 });
    const kept = events.filter((event, index) => !(event.type === 'audio' && event.utterance === 2 && index < restart));
    expect(spoken(kept)).toBe('One. Two two. ');
    expect(log[1]).toEqual(['start', 'text:Two two. ', 'flush']);
  });

  it('cancel drops pending audio at once and the next utterance plays on a fresh socket', async () => {
    const log: string[][] = [];
    server = await startFakeServer({ live: fakeLive({ afterFinish: 'close', onSpeak: (text) => (text.startsWith('Long') ? 'slow' : 'speak') }, log) });
    const session = await new SpeechClient({ baseUrl: server.url, apiKey: 'k', live }).live();
    const events: LiveEvent[] = [];
    const draining = drain(session, events);
    session.send('Long sentence that keeps going.');
    const long = session.flush();
    while (!events.some((event) => event.type === 'audio')) await delay(5);
    session.cancel();
    expect(await long).toMatchObject({ outcome: 'cancelled' });
    const atCancel = events.length;
    session.send('Next.');
    expect(await session.flush()).toMatchObject({ outcome: 'spoken', audioBytes: 5 });
    session.close();
    await draining;
    const after = events.slice(atCancel);
    expect(after.filter((event) => event.type === 'audio' && event.utterance === 1)).toHaveLength(0);
    expect(spoken(after)).toBe('Next.');
    expect(spoken(events).length).toBeLessThan('Long sentence that keeps going.'.length + 5);
    expect(server.sockets).toHaveLength(2);
    expect(log[1]).toEqual(['start', 'text:Next.', 'flush']);
  });

  it('replaces a socket that stops answering pings and resends the utterance', async () => {
    const log: string[][] = [];
    server = await startFakeServer({
      live: fakeLive(
        {
          afterFinish: 'close',
          onSpeak: (_text, connection, socket) => {
            if (connection === 0) (socket as unknown as { _socket: { pause(): void } })._socket.pause();
            return connection === 0 ? 'silent' : 'speak';
          },
        },
        log,
      ),
    });
    const session = await new SpeechClient({ baseUrl: server.url, apiKey: 'k', live: { ...live, pingIntervalMs: 40, pingTimeoutMs: 150 } }).live();
    const events: LiveEvent[] = [];
    const draining = drain(session, events);
    session.send('Still there?');
    expect(await session.flush()).toMatchObject({ outcome: 'spoken', audioBytes: 12 });
    session.close();
    await draining;
    expect(events.some((event) => event.type === 'reconnected')).toBe(true);
    expect(spoken(events)).toBe('Still there?');
  });

  it('fails with ConnectionError once the reconnects run out, resolving pending utterances as failed', async () => {
    const log: string[][] = [];
    server = await startFakeServer({ live: fakeLive({ afterFinish: 'close', onSpeak: () => 'drop' }, log) });
    const session = await new SpeechClient({ baseUrl: server.url, apiKey: 'k', live: { ...live, maxReconnects: 2 } }).live();
    const draining = drain(session, []).catch((error: unknown) => error);
    session.send('Never spoken.');
    const result = await session.flush();
    expect(result.outcome).toBe('failed');
    expect(result.error).toBeInstanceOf(ConnectionError);
    expect(await draining).toBeInstanceOf(ConnectionError);
    expect(server.sockets).toHaveLength(3);
    for (const events of log) expect(events).toEqual(['start', 'text:Never spoken.', 'flush']);
  });

  it('retries a reconnect refused with 429 and then resends', async () => {
    const log: string[][] = [];
    let upgrades = 0;
    server = await startFakeServer({
      refuseUpgrade: () => (upgrades++ === 1 ? { status: 429, body: JSON.stringify({ status: 429, message: 'slow down' }) } : null),
      live: fakeLive({ afterFinish: 'close', onSpeak: (_text, connection) => (connection === 0 ? 'drop' : 'speak') }, log),
    });
    const session = await new SpeechClient({ baseUrl: server.url, apiKey: 'k', live }).live();
    const events: LiveEvent[] = [];
    const draining = drain(session, events);
    session.send('Eventually.');
    expect(await session.flush()).toMatchObject({ outcome: 'spoken', audioBytes: 11 });
    session.close();
    await draining;
    expect(upgrades).toBe(3);
    expect(spoken(events)).toBe('Eventually.');
  });

  it('aborts the upgrade with the caller signal', async () => {
    server = await startFakeServer({ live: () => undefined });
    const controller = new AbortController();
    controller.abort(new Error('not now'));
    await expect(new SpeechClient({ baseUrl: server.url, apiKey: 'k' }).live({}, { signal: controller.signal })).rejects.toThrow('not now');
  });

  it.each([
    [401, AuthenticationError],
    [402, PaymentRequiredError],
    [429, RateLimitError],
  ])('turns a refused upgrade (%i) into its typed error', async (status, kind) => {
    server = await startFakeServer({ refuseUpgrade: () => ({ status, body: JSON.stringify({ status, message: 'refused' }), headers: { 'retry-after': '3' } }) });
    const error = await new SpeechClient({ baseUrl: server.url, apiKey: 'k' }).live().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(kind);
    expect((error as InstanceType<typeof kind>).status).toBe(status);
    expect((error as InstanceType<typeof kind>).body).toEqual({ status, message: 'refused' });
    if (error instanceof RateLimitError) expect(error.retryAfterMs).toBe(3000);
  });

  it('fails the session with MalformedResponseError on a frame that is not msgpack, without crashing', async () => {
    server = await startFakeServer({ live: (socket) => socket.on('message', () => socket.send(Buffer.from([0xc1, 0x00]))) });
    const session = await new SpeechClient({ baseUrl: server.url, apiKey: 'k', live }).live();
    const events: LiveEvent[] = [];
    const draining = drain(session, events).catch((error: unknown) => error);
    session.send('x');
    const result = await session.flush();
    expect(result.outcome).toBe('failed');
    expect(result.error).toBeInstanceOf(MalformedResponseError);
    expect(await draining).toBeInstanceOf(MalformedResponseError);
    expect(() => session.send('more')).toThrow(MalformedResponseError);
  });

  it('fails the session with LiveSessionError on a server error event', async () => {
    server = await startFakeServer({ live: (socket) => socket.once('message', () => socket.send(liveFrame({ event: 'error', error: { message: 'too many sessions' } }))) });
    const session = await new SpeechClient({ baseUrl: server.url, apiKey: 'k', live }).live();
    const draining = drain(session, []).catch((error: unknown) => error);
    session.send('x');
    const error = await draining;
    expect(error).toBeInstanceOf(LiveSessionError);
    expect((error as Error).message).toContain('too many sessions');
  });

  it('uses the with-timestamp path and passes alignment through', async () => {
    server = await startFakeServer({
      live: (socket) =>
        socket.on('message', (data) => {
          if (readLiveFrame(data).event !== 'stop') return;
          socket.send(liveFrame({ event: 'audio', audio: Buffer.from('ab'), content: 'Hi.', alignment: { segments: [{ text: 'Hi', start: 0, end: 0.2 }] }, chunk_audio_offset_sec: 0 }));
          socket.send(liveFrame({ event: 'finish', reason: 'stop' }));
        }),
    });
    const session = await new SpeechClient({ baseUrl: server.url, apiKey: 'k', live }).live({}, { timestamps: true });
    const events: LiveEvent[] = [];
    const draining = drain(session, events);
    session.send('Hi.');
    await session.stop();
    session.close();
    await draining;
    expect(server.sockets).toHaveLength(1);
    const audio = events.find((event) => event.type === 'audio');
    expect(audio).toMatchObject({ content: 'Hi.', alignment: { segments: [{ text: 'Hi', start: 0, end: 0.2 }] }, words: [{ text: 'Hi', startMs: 0, endMs: 200 }] });
  });
});
