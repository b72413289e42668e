import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAudio } from '../../src/audio/index.js';
import { postJson, postMsgpack, startService, type RunningService } from '../support/service-harness.js';

let server: RunningService;

beforeAll(async () => {
  server = await startService();
});
afterAll(async () => {
  await server.close();
});

interface TimestampEvent {
  audio_base64: string;
  content: string;
  alignment: { segments: { text: string; start: number; end: number }[]; audio_duration: number } | null;
  chunk_seq: number;
  chunk_audio_offset_sec: number;
}

async function readEvents(response: Response): Promise<TimestampEvent[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice('data: '.length)) as TimestampEvent);
}

const text =
  'Good morning, everyone! The meeting starts at nine in the large room on the second floor. Please bring your notes, and a pen. ' +
  'We will talk about the new schedule first, then about the budget for next year.';

describe('POST /v1/tts/stream/with-timestamp', () => {
  it('sends one SSE event per chunk with all five fields and word timings from the synthesiser', async () => {
    const response = await postJson(`${server.url}/v1/tts/stream/with-timestamp`, { text, format: 'wav', sample_rate: 16000, chunk_length: 100 });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(response);
    expect(events.length).toBeGreaterThan(1);
    let offset = 0;
    events.forEach((event, index) => {
      expect(Object.keys(event).sort()).toEqual(['alignment', 'audio_base64', 'chunk_audio_offset_sec', 'chunk_seq', 'content']);
      expect(event.chunk_seq).toBe(index);
      expect(event.chunk_audio_offset_sec).toBeCloseTo(offset, 2);
      offset += event.alignment!.audio_duration;
      let previousEnd = 0;
      for (const segment of event.alignment!.segments) {
        expect(segment.text).not.toMatch(/[,.!?]/);
        expect(segment.start).toBeGreaterThanOrEqual(previousEnd - 0.001);
        expect(segment.end).toBeGreaterThan(segment.start);
        expect(segment.end).toBeLessThanOrEqual(event.alignment!.audio_duration + 0.001);
        previousEnd = segment.end;
      }
    });
    const words = events.flatMap((event) => event.alignment!.segments.map((segment) => segment.text.toLowerCase()));
    expect(words).toEqual(text.toLowerCase().replace(/[,.!]/g, '').split(' '));
    expect(events.map((event) => event.content).join(' ')).toBe(text);
    const audio = Buffer.concat(events.map((event) => Buffer.from(event.audio_base64, 'base64')));
    const decoded = await decodeAudio(audio);
    expect(decoded.samples.length / decoded.sampleRate).toBeCloseTo(offset, 1);
  });

  it('accepts MessagePack bodies and encodes chunks in the requested format', async () => {
    const response = await postMsgpack(`${server.url}/v1/tts/stream/with-timestamp`, { text, format: 'mp3' }, { model: 's1' });
    expect(response.status).toBe(200);
    const events = await readEvents(response);
    const audio = Buffer.concat(events.map((event) => Buffer.from(event.audio_base64, 'base64')));
    const decoded = await decodeAudio(audio);
    expect(decoded.sampleRate).toBe(44100);
    expect(decoded.samples.length / decoded.sampleRate).toBeGreaterThan(4);
  });

  it('cuts the first chunk earlier with latency low than with latency normal', async () => {
    const long = 'When you arrive at the station, walk past the ticket office and the small bakery on the corner, then turn left at the lights. The hotel is on your right.';
    const normal = await readEvents(await postJson(`${server.url}/v1/tts/stream/with-timestamp`, { text: long, format: 'pcm', latency: 'normal' }));
    const low = await readEvents(await postJson(`${server.url}/v1/tts/stream/with-timestamp`, { text: long, format: 'pcm', latency: 'low' }));
    expect(low[0]!.content.length).toBeLessThan(normal[0]!.content.length);
    expect(low.map((event) => event.content).join(' ').replace(/\s+/g, ' ')).toBe(long);
  });

  it('expands numbers, money and dates into words when normalize is true (the default), and not when false', async () => {
    const body = { text: 'It costs $5 on March 3rd, 2025.', format: 'pcm' };
    const spoken = (await readEvents(await postJson(`${server.url}/v1/tts/stream/with-timestamp`, body))).map((e) => e.content).join(' ');
    expect(spoken).toMatch(/five dollars/);
    expect(spoken).toMatch(/March third/);
    expect(spoken).not.toMatch(/\d/);
    const raw = await readEvents(await postJson(`${server.url}/v1/tts/stream/with-timestamp`, { ...body, normalize: false }));
    expect(raw.map((e) => e.content).join(' ')).toBe('It costs $5 on March 3rd, 2025.');
  });

  it('answers errors before the stream starts with a status', async () => {
    const response = await postJson(`${server.url}/v1/tts/stream/with-timestamp`, { text: 'hi', format: 'opus', sample_rate: 16000 });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/Supported: 48000/);
  });
});
