import { decode, encode } from '@msgpack/msgpack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { decodeAudio, decodeAudioAt, bytesToInt16, rmsDbfs } from '../../src/audio/index.js';
import { PocketSphinxEngine } from '../../src/engines/index.js';
import { apiKey, startService, type RunningService } from '../support/service-harness.js';
import { connectLive, type LiveClient, type ServerEvent } from '../support/service-live-client.js';

let server: RunningService;

beforeAll(async () => {
  server = await startService();
});
afterAll(async () => {
  await server.close();
});

function connect(path = '/v1/tts/live', headers: Record<string, string> = {}): Promise<LiveClient> {
  return connectLive(`${server.wsUrl}${path}`, { authorization: `Bearer ${apiKey}`, ...headers });
}

function upgradeStatus(headers: Record<string, string>, path = '/v1/tts/live'): Promise<{ status: number; body: string; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${server.wsUrl}${path}`, { headers });
    ws.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, retryAfter: response.headers['retry-after'] as string | undefined }));
    });
    ws.on('open', () => reject(new Error('upgrade unexpectedly succeeded')));
    ws.on('error', () => {});
  });
}

const audioOf = (events: ServerEvent[]) => events.filter((event) => event.event === 'audio');

describe('GET /v1/tts/live', () => {
  it('runs start · text · text · flush · audio · stop · finish{stop} · close, with audio per flushed segment', async () => {
    const client = await connect();
    client.send({ event: 'start', request: { text: '', format: 'pcm', sample_rate: 16000, reference_id: 'slt' } });
    client.send({ event: 'text', text: 'Hello ' });
    client.send({ event: 'text', text: 'world.' });
    client.send({ event: 'flush' });
    await client.waitFor((event) => event.event === 'audio');
    const afterFirstFlush = audioOf(client.events).length;
    expect(afterFirstFlush).toBeGreaterThan(0);
    client.send({ event: 'text', text: 'And a second segment follows.' });
    client.send({ event: 'stop' });
    const finish = await client.waitFor((event) => event.event === 'finish');
    expect(finish.reason).toBe('stop');
    expect((await client.closed).code).toBe(1000);
    const audio = audioOf(client.events);
    expect(audio.length).toBeGreaterThan(afterFirstFlush);
    for (const event of audio) expect(event.audio).toBeInstanceOf(Uint8Array);
    const times = audio.map((event) => event.time as number);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const total = audio.reduce((sum, event) => sum + bytesToInt16(event.audio as Uint8Array).length, 0);
    expect(total / 16000).toBeGreaterThan(2);
    expect(client.events.at(-1)!.event).toBe('finish');
  });

  it('speaks PCM at the start request\'s sample_rate: 8 kHz gives half the samples of 16 kHz', async () => {
    const samplesAt = async (rate: number) => {
      const client = await connect();
      client.send({ event: 'start', request: { format: 'pcm', sample_rate: rate, reference_id: 'slt' } });
      client.send({ event: 'text', text: 'Your parcel arrives on Tuesday.' });
      client.send({ event: 'stop' });
      await client.waitFor((event) => event.event === 'finish');
      return audioOf(client.events).reduce((sum, event) => sum + bytesToInt16(event.audio as Uint8Array).length, 0);
    };
    const [narrow, wide] = [await samplesAt(8000), await samplesAt(16000)];
    expect(wide / 16000).toBeGreaterThan(1);
    expect(narrow / wide).toBeCloseTo(0.5, 2);
  });

  it('streams a continuous MP3 across flushes that decodes to all segments', async () => {
    const client = await connect();
    client.send({ event: 'start', request: { text: '', format: 'mp3' } });
    client.send({ event: 'text', text: 'One two three.' });
    client.send({ event: 'flush' });
    client.send({ event: 'text', text: 'Four five six.' });
    client.send({ event: 'flush' });
    client.send({ event: 'stop' });
    await client.waitFor((event) => event.event === 'finish');
    const bytes = Buffer.concat(audioOf(client.events).map((event) => event.audio as Uint8Array));
    const decoded = await decodeAudio(bytes);
    expect(decoded.samples.length / decoded.sampleRate).toBeGreaterThan(1.5);
  });

  it('synthesises text given in start.request.text and whole sentences before any flush', async () => {
    const client = await connect();
    client.send({ event: 'start', request: { text: 'This text came with the start event and is long enough to go. ', format: 'wav' } });
    client.send({ event: 'text', text: 'More text. ' });
    const audio = await client.waitFor((event) => event.event === 'audio');
    expect(String.fromCharCode(...(audio.audio as Uint8Array).subarray(0, 4))).toBe('RIFF');
    client.send({ event: 'stop' });
    await client.closed;
    // The audio says the start text, sentence by sentence (the words heard by pocketsphinx, a level of speech).
    const bytes = Buffer.concat(audioOf(client.events).map((event) => event.audio as Uint8Array));
    const speech = await decodeAudioAt(bytes, 16000);
    expect(rmsDbfs(speech.samples)).toBeGreaterThan(-35);
    const recognizer = new PocketSphinxEngine();
    const heard = (await recognizer.transcribe(speech.samples).finally(() => recognizer.shutdown())).text.split(' ');
    // Heard in a run: "this text came with the sport event and is long enough to go more text" (7 of these words).
    expect(heard.filter((word) => ['text', 'came', 'start', 'event', 'long', 'enough', 'more'].includes(word)).length).toBeGreaterThanOrEqual(5);
  });

  it('falls back to the default model for a missing or unknown model header', async () => {
    const client = await connect('/v1/tts/live', { model: 'no-such-model' });
    client.send({ event: 'start', request: { format: 'pcm', sample_rate: 16000 } });
    client.send({ event: 'text', text: 'Still speaking.' });
    client.send({ event: 'stop' });
    const finish = await client.waitFor((event) => event.event === 'finish');
    expect(finish.reason).toBe('stop');
    expect(audioOf(client.events).length).toBeGreaterThan(0);
  });

  it('adds content, alignment, chunk_seq and chunk_audio_offset_sec on /v1/tts/live/with-timestamp', async () => {
    const client = await connect('/v1/tts/live/with-timestamp');
    client.send({ event: 'start', request: { format: 'pcm', sample_rate: 16000 } });
    client.send({ event: 'text', text: 'Hello there, friend. How are you today?' });
    client.send({ event: 'stop' });
    await client.waitFor((event) => event.event === 'finish');
    const audio = audioOf(client.events).filter((event) => (event.audio as Uint8Array).length > 0);
    expect(audio.length).toBeGreaterThan(0);
    let offset = 0;
    audio.forEach((event, index) => {
      expect(event.chunk_seq).toBe(index);
      expect(event.chunk_audio_offset_sec).toBeCloseTo(offset, 2);
      const alignment = event.alignment as { segments: { text: string; start: number; end: number }[]; audio_duration: number };
      expect(alignment.audio_duration).toBeCloseTo((event.audio as Uint8Array).length / 2 / 16000, 2);
      offset += alignment.audio_duration;
      for (const segment of alignment.segments) {
        expect(segment.text).toMatch(/^[A-Za-z]+$/);
        expect(segment.end).toBeGreaterThanOrEqual(segment.start);
        expect(segment.end).toBeLessThanOrEqual(alignment.audio_duration + 0.01);
      }
    });
    const words = audio.flatMap((event) => (event.alignment as { segments: { text: string }[] }).segments.map((s) => s.text));
    expect(words.join(' ')).toBe('Hello there friend How are you today');
  });

  it('answers a malformed frame with error and finish{reason:"error"} and closes, never crashing', async () => {
    for (const bad of [Buffer.from([0xc1]), Buffer.from(encode([1, 2])), Buffer.from(encode({ noEvent: true }))]) {
      const client = await connect();
      client.ws.send(bad);
      const finish = await client.waitFor((event) => event.event === 'finish');
      expect(finish.reason).toBe('error');
      expect(client.events[0]!.event).toBe('error');
      expect((await client.closed).code).toBe(1008);
    }
    const client = await connect();
    client.send({ event: 'text', text: 'no start yet' });
    const error = await client.waitFor((event) => event.event === 'error');
    expect(JSON.stringify(error.error)).toMatch(/before start/);
    await client.closed;
  });

  it('rejects a bad start request with the validation detail', async () => {
    const client = await connect();
    client.send({ event: 'start', request: { format: 'mp3', sample_rate: 22050 } });
    const error = await client.waitFor((event) => event.event === 'error');
    expect((error.error as { status: number }).status).toBe(400);
    expect((error.error as { message: string }).message).toMatch(/Supported: 32000, 44100/);
    await client.closed;
    const second = await connect();
    second.send({ event: 'start', request: { prosody: { speed: 9 } } });
    const invalid = await second.waitFor((event) => event.event === 'error');
    expect((invalid.error as { status: number }).status).toBe(422);
    await second.closed;
  });

  it('ignores text frames and unknown events', async () => {
    const client = await connect();
    client.ws.send('a text frame');
    client.send({ event: 'start', request: { format: 'pcm', sample_rate: 16000 } });
    client.send({ event: 'something-new', value: 1 });
    client.send({ event: 'text', text: 'Fine.' });
    client.send({ event: 'stop' });
    expect((await client.waitFor((event) => event.event === 'finish')).reason).toBe('stop');
  });

  it('accepts a new start after finish when configured to keep the socket open', async () => {
    const open = await startService({ live: { closeAfterFinish: false } });
    try {
      const ws = new WebSocket(`${open.wsUrl}/v1/tts/live`, { headers: { authorization: `Bearer ${apiKey}` } });
      const events: ServerEvent[] = [];
      ws.on('message', (data) => events.push(decode(data as Buffer) as ServerEvent));
      await new Promise((resolve) => ws.once('open', resolve));
      const finishes = async (count: number) => {
        while (events.filter((event) => event.event === 'finish').length < count) await new Promise((resolve) => setTimeout(resolve, 20));
      };
      for (const round of [1, 2]) {
        ws.send(encode({ event: 'start', request: { format: 'pcm', sample_rate: 16000 } }));
        ws.send(encode({ event: 'text', text: `Round ${round}.` }));
        ws.send(encode({ event: 'stop' }));
        await finishes(round);
      }
      expect(events.filter((event) => event.event === 'finish').map((event) => event.reason)).toEqual(['stop', 'stop']);
      expect(ws.readyState).toBe(WebSocket.OPEN);
      expect(open.accounts.charges.filter((charge) => charge.usage.kind === 'tts')).toHaveLength(2);
      ws.close();
    } finally {
      await open.close();
    }
  });

  it('answers auth failures on the upgrade as plain HTTP statuses', async () => {
    const missing = await upgradeStatus({});
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body)).toMatchObject({ status: 401 });
    expect((await upgradeStatus({ authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await upgradeStatus({ authorization: `Bearer ${apiKey}` }, '/v1/tts/elsewhere')).status).toBe(404);
  });

  it('keeps the connection alive with pings', async () => {
    const fast = await startService({ live: { pingIntervalMs: 50 } });
    try {
      const ws = new WebSocket(`${fast.wsUrl}/v1/tts/live`, { headers: { authorization: `Bearer ${apiKey}` } });
      let pings = 0;
      ws.on('ping', () => (pings += 1));
      await new Promise((resolve) => ws.once('open', resolve));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(pings).toBeGreaterThanOrEqual(3);
      expect(ws.readyState).toBe(WebSocket.OPEN);
      ws.close();
    } finally {
      await fast.close();
    }
  });

  it('ends open sessions with finish{reason:"error"} when the server shuts down', async () => {
    const closing = await startService();
    const ws = new WebSocket(`${closing.wsUrl}/v1/tts/live`, { headers: { authorization: `Bearer ${apiKey}` } });
    const events: ServerEvent[] = [];
    ws.on('message', (data) => events.push(decode(data as Buffer) as ServerEvent));
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(encode({ event: 'start', request: { format: 'pcm' } }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    await closing.close();
    expect(performance.now() - started).toBeLessThan(3000);
    expect(await closed).toBe(1001);
    expect(events.map((event) => event.event)).toEqual(['error', 'finish']);
    expect(events[1]!.reason).toBe('error');
  });

  it('drains: a round in progress finishes with its audio, an idle session and new sessions are refused, and the gauge counts them', async () => {
    // Sockets stay open after a finish here, so only the drain closes the one that spoke.
    const draining = await startService({ live: { closeAfterFinish: false } });
    const headers = { authorization: `Bearer ${apiKey}` };
    // The gauge counts the sessions of every server in this process: compare with what was open before.
    const gauge = async () => Number(/^shoal_service_live_sessions (\d+)/m.exec(await (await fetch(`${draining.url}/metrics`)).text())?.[1]);
    const before = await gauge();
    const speaking = await connectLive(`${draining.wsUrl}/v1/tts/live`, headers);
    const idle = await connectLive(`${draining.wsUrl}/v1/tts/live`, headers);
    expect(await gauge()).toBe(before + 2);
    speaking.send({ event: 'start', request: { format: 'pcm', sample_rate: 16000 } });
    speaking.send({ event: 'text', text: 'This round was started before the drain and must be heard to its end.' });
    speaking.send({ event: 'flush' });
    await speaking.waitFor((event) => event.event === 'audio');
    const drained = draining.service.drain(20_000);
    speaking.send({ event: 'text', text: 'And this sentence too.' });
    speaking.send({ event: 'stop' });
    expect((await idle.closed).code).toBe(1001);
    const refused = await connectLive(`${draining.wsUrl}/v1/tts/live`, headers).catch((error: Error) => error);
    expect(String(refused)).toMatch(/503/);
    expect((await speaking.closed).code).toBe(1000);
    expect(speaking.events.at(-1)).toMatchObject({ event: 'finish', reason: 'stop' });
    expect(speaking.events.filter((event) => event.event === 'audio').length).toBeGreaterThan(1);
    await drained;
    expect(await gauge()).toBe(before);
    await draining.close();
  });

  it('bills the characters of a session once, when it ends', async () => {
    const before = server.accounts.charges.length;
    const client = await connect();
    client.send({ event: 'start', request: { format: 'pcm', sample_rate: 16000 } });
    client.send({ event: 'text', text: 'Bill me. ' });
    client.send({ event: 'flush' });
    client.send({ event: 'text', text: 'Twice?' });
    client.send({ event: 'stop' });
    await client.closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const added = server.accounts.charges.slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]!.usage).toEqual({ kind: 'tts', characters: 'Bill me.'.length + 'Twice?'.length });
  });
});
