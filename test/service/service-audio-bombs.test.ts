import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioTooLongError, decodeAudio } from '../../src/audio/index.js';
import { MediaPool } from '../../src/engines/index.js';
import { silentFlac, silentMp3, silentOggOpus, slowWav } from '../support/audio-bombs.js';
import { authHeader, postMsgpack, startService, type RunningService } from '../support/service-harness.js';

const minute = 60_000;

describe('decoding refuses audio longer than the limit before holding it', () => {
  const bombs = {
    'FLAC (STREAMINFO tells)': () => silentFlac(20 * 60),
    'FLAC (STREAMINFO says "unknown")': () => silentFlac(20 * 60, 0),
    'FLAC (STREAMINFO lies: 10 s)': () => silentFlac(20 * 60, 10),
    'Ogg Opus of empty 120 ms packets': () => silentOggOpus(20 * 60),
    'MP3 at 8 kbps': () => silentMp3(20 * 60),
    'WAV whose header says 1 sample per second': () => slowWav(20 * 60),
  };
  for (const [name, make] of Object.entries(bombs)) {
    it(name, async () => {
      const error = await decodeAudio(make(), { maxDurationMs: minute }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AudioTooLongError);
      // Refused from the header (exact), or the decoder stopped just past the limit, not at the file's end.
      const { durationMs, exact } = error as AudioTooLongError;
      expect(exact ? durationMs : durationMs - minute).toBeLessThan(exact ? 20 * minute + 1000 : 30_000);
      if (exact) expect(durationMs).toBeGreaterThan(19 * minute);
    });
  }

  it('still decodes audio within the limit, whatever its header says', async () => {
    for (const bytes of [silentFlac(30, 0), silentFlac(30, 5), silentOggOpus(30), silentMp3(30)]) {
      const decoded = await decodeAudio(bytes, { maxDurationMs: minute });
      expect(decoded.samples.length / decoded.sampleRate).toBeGreaterThan(29.5);
    }
  });
});

describe('the media workers refuse bombs in voice samples and references', () => {
  it('prepareSample and voiceOfFiles answer AudioTooLongError (400) for 10 hours of FLAC', async () => {
    const pool = new MediaPool({ size: 1 });
    const bomb = silentFlac(10 * 3600);
    const prepared = await pool.prepareSample(bomb, { enhance: false }).catch((e: unknown) => e);
    expect(prepared).toBeInstanceOf(AudioTooLongError);
    expect(prepared).toMatchObject({ status: 400 });
    const voice = await pool.voiceOfFiles([silentOggOpus(10 * 3600)]).catch((e: unknown) => e);
    expect(voice).toBeInstanceOf(AudioTooLongError);
  });
});

describe('POST /v1/asr and inline TTS references with decompression bombs', () => {
  let server: RunningService;
  beforeAll(async () => {
    server = await startService();
  });
  afterAll(async () => {
    await server.close();
  });

  /** Posts the file and samples the process's RSS (worker threads included) until the answer comes. */
  async function postWatched(bytes: Uint8Array, name: string): Promise<{ status: number; body: { status: number; message: string }; ms: number; growthMb: number }> {
    const before = process.memoryUsage.rss();
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
    const started = performance.now();
    try {
      const form = new FormData();
      form.set('audio', new Blob([Buffer.from(bytes)]), name);
      const response = await fetch(`${server.url}/v1/asr`, { method: 'POST', headers: authHeader, body: form });
      const body = (await response.json()) as { status: number; message: string };
      return { status: response.status, body, ms: performance.now() - started, growthMb: (peak - before) / 2 ** 20 };
    } finally {
      clearInterval(timer);
    }
  }

  const tenHours = 10 * 3600;
  for (const [name, make] of [
    ['bomb.flac', () => silentFlac(tenHours)],
    ['hidden.flac', () => silentFlac(tenHours, 0)],
    ['bomb.opus', () => silentOggOpus(tenHours)],
    ['bomb.mp3', () => silentMp3(2 * 3600)],
    ['bomb.wav', () => slowWav(tenHours)],
  ] as const) {
    it(`refuses ${name} with 400 in the service's error shape, without holding its audio`, async () => {
      const bytes = make();
      expect(bytes.length).toBeLessThan(15 * 2 ** 20);
      const { status, body, ms, growthMb } = await postWatched(bytes, name);
      expect(status).toBe(400);
      expect(body).toMatchObject({ status: 400 });
      expect(body.message).toMatch(/the limit is 60 minutes: split the recording/);
      expect(ms).toBeLessThan(30_000); // seconds here; the reliability bench prints the figure
      expect(growthMb).toBeLessThan(100);
    });
  }

  it('refuses an inline TTS reference holding 10 hours', async () => {
    const response = await postMsgpack(`${server.url}/v1/tts`, { text: 'Hello.', format: 'wav', references: [{ audio: silentFlac(tenHours), text: 'hello' }] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/references\[0\]\.audio could not be read: audio is 600 minutes long; the limit is 10 minutes/);
  });
});
