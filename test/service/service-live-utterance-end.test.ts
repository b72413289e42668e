import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { SpeechClient, type LiveEvent } from '../../src/client/index.js';
import { apiKey, startService, type RunningService } from '../support/service-harness.js';
import { connectLive, type ServerEvent } from '../support/service-live-client.js';
import { delay, fakeAudioOf, liveFrame, readLiveFrame, startFakeServer } from '../support/client-fakes.js';

let server: RunningService;

beforeAll(async () => {
  server = await startService();
});
afterAll(async () => {
  await server.close();
});

const connect = () => connectLive(`${server.wsUrl}/v1/tts/live`, { authorization: `Bearer ${apiKey}` });
const names = (events: ServerEvent[]) => events.map((event) => event.event).filter((name, i, all) => name !== 'audio' || all[i - 1] !== 'audio');

describe('the utterance_end event of the live socket (shoal serve)', () => {
  it('follows all the audio of each flush that asks for it, one per flush, in order; an empty flush gets one too', async () => {
    const client = await connect();
    client.send({ event: 'start', request: { format: 'pcm', sample_rate: 8000, reference_id: 'slt' } });
    client.send({ event: 'text', text: 'Your parcel arrives on Tuesday. It will come before noon.' });
    client.send({ event: 'flush', utterance_end: true });
    client.send({ event: 'text', text: 'Goodbye.' });
    client.send({ event: 'flush', utterance_end: true });
    client.send({ event: 'flush', utterance_end: true });
    client.send({ event: 'stop' });
    await client.waitFor((event) => event.event === 'finish');
    // The stop's audio is the encoder's tail (docs/realtime-protocol.md), after the last flush's end.
    expect(names(client.events)).toEqual(['audio', 'utterance_end', 'audio', 'utterance_end', 'utterance_end', 'audio', 'finish']);
    const firstEnd = client.events.findIndex((event) => event.event === 'utterance_end');
    const firstBytes = client.events.slice(0, firstEnd).reduce((sum, event) => sum + ((event.audio as Uint8Array | undefined)?.length ?? 0), 0);
    // "Your parcel arrives on Tuesday. It will come before noon." is two sentences: both are spoken before the end.
    expect(firstBytes / 2 / 8000).toBeGreaterThan(2);
  });

  it('is never sent to a client that does not ask for it', async () => {
    const client = await connect();
    client.send({ event: 'start', request: { format: 'pcm', sample_rate: 8000, reference_id: 'slt' } });
    client.send({ event: 'text', text: 'Hello there.' });
    client.send({ event: 'flush' });
    client.send({ event: 'stop' });
    await client.waitFor((event) => event.event === 'finish');
    expect(names(client.events)).toEqual(['audio', 'finish']);
    expect(client.events.some((event) => event.event === 'utterance_end')).toBe(false);
  });

  // 'auto' (the default): shoal serve answers the upgrade with `Shoal-Utterance-End: supported`, so the client asks.
  it.each([{ utteranceEndEvents: true }, { utteranceEndEvents: 'auto' as const }, {}])('lets LiveTtsSession complete utterances on the event alone: no idle gap is waited for (%o)', async (asked) => {
    // An idle gap of a minute: if completion still waited for quiet, the flushes would not resolve in the test's time.
    const client = new SpeechClient({ baseUrl: server.url, apiKey, live: { ...asked, utteranceIdleMs: 60_000 } });
    const session = await client.live({ format: 'pcm', sample_rate: 8000, reference_id: 'slt' });
    const events: LiveEvent[] = [];
    const draining = (async () => {
      for await (const event of session) events.push(event);
    })();
    session.send('Your parcel arrives on Tuesday.');
    const first = session.flush();
    session.send('Goodbye.');
    const second = session.flush();
    const started = performance.now();
    const results = await Promise.all([first, second]);
    expect(performance.now() - started).toBeLessThan(20_000);
    session.close();
    await draining;
    expect(results.map((result) => result.outcome)).toEqual(['spoken', 'spoken']);
    const order = events.filter((event) => event.type !== 'finish').map((event) => (event.type === 'audio' ? `audio:${event.utterance}` : `${event.type}:${(event as { utterance: number }).utterance}`));
    const collapsed = order.filter((entry, i) => entry !== order[i - 1]);
    expect(collapsed).toEqual(['audio:1', 'utterance-end:1', 'audio:2', 'utterance-end:2']);
    const audioBytes = (utterance: number) => events.reduce((sum, event) => sum + (event.type === 'audio' && event.utterance === utterance ? event.audio.length : 0), 0);
    expect(results.map((result) => result.audioBytes)).toEqual([audioBytes(1), audioBytes(2)]);
  });
});

describe('LiveTtsSession with utteranceEndEvents, against a server that pauses mid-utterance', () => {
  /** A double of shoal serve's socket: the flushed text's audio in two halves 300 ms apart (a slow synthesis), then utterance_end if asked. */
  const pausing = (socket: WebSocket) => {
    let buffer = '';
    socket.on('message', (data) => {
      const event = readLiveFrame(data);
      if (event.event === 'text') buffer += event.text as string;
      if (event.event !== 'flush') return;
      const audio = fakeAudioOf(buffer);
      buffer = '';
      const half = Math.ceil(audio.length / 2);
      socket.send(liveFrame({ event: 'audio', audio: audio.subarray(0, half), time: 0 }));
      void delay(300).then(() => {
        socket.send(liveFrame({ event: 'audio', audio: audio.subarray(half), time: 10 }));
        if (event.utterance_end === true) socket.send(liveFrame({ event: 'utterance_end' }));
      });
    });
  };

  async function utterancesOf(live: { utteranceIdleMs: number; utteranceEndEvents?: boolean }) {
    const fake = await startFakeServer({ live: pausing });
    try {
      const session = await new SpeechClient({ baseUrl: fake.url, apiKey: 'k', live }).live({ format: 'pcm' });
      const events: LiveEvent[] = [];
      const draining = (async () => {
        for await (const event of session) events.push(event);
      })();
      session.send('One sentence.');
      const result = await session.flush();
      await delay(400);
      session.close();
      await draining;
      return { result, audio: events.filter((event) => event.type === 'audio').map((event) => (event as { utterance: number }).utterance) };
    } finally {
      await fake.close();
    }
  }

  it('keeps a pause longer than the idle gap inside the utterance: it ends on the event, with all its audio', async () => {
    const { result, audio } = await utterancesOf({ utteranceIdleMs: 50, utteranceEndEvents: true });
    expect(result).toMatchObject({ outcome: 'spoken', audioBytes: 'One sentence.'.length });
    expect(audio).toEqual([1, 1]);
  });

  it('without it, the same pause ends the utterance early (what load did to the idle gap)', async () => {
    const { result, audio } = await utterancesOf({ utteranceIdleMs: 50 });
    expect(result.audioBytes).toBeLessThan('One sentence.'.length);
    expect(audio).toEqual([1, 0]);
  });
});
