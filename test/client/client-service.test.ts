import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWav } from '../../src/audio/index.js';
import {
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  SpeechClient,
  ValidationError,
  type LiveEvent,
} from '../../src/client/index.js';
import { BuiltinVoices, createSpeechService, type SpeechService } from '../../src/service/index.js';
import { formatMicros, openAccountServices, type AccountServices } from '../../src/service/store/index.js';

const DEV_KEY = 'client-test-dev-key';
const SAMPLE = new URL('../fixtures/speech/slt_01.wav', import.meta.url).pathname;
const CALL = new URL('../fixtures/calls/booking-16k.wav', import.meta.url).pathname;

let service: SpeechService;
let accounts: AccountServices;
let dataDir: string;
let client: SpeechClient;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'shoal-client-'));
  accounts = await openAccountServices(dataDir, { devKey: DEV_KEY });
  service = await createSpeechService({
    accounts: accounts.accounts,
    voices: new BuiltinVoices(accounts.voices),
    extraRoutes: [accounts.routes],
    logLevel: 'silent',
  });
  const url = await service.listen({ host: '127.0.0.1', port: 0 });
  client = new SpeechClient({ baseUrl: url, apiKey: DEV_KEY, live: { utteranceIdleMs: 400 } });
});

afterAll(async () => {
  await service?.close();
  accounts?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function wavSeconds(bytes: Uint8Array): number {
  const wav = parseWav(bytes);
  return wav.samples.length / wav.sampleRate;
}

describe('client against shoal serve', () => {
  it('synthesises WAV over HTTP, streamed in chunks', async () => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of client.tts({ text: 'Hello from the client test.', format: 'wav', sample_rate: 16000, reference_id: 'slt' })) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(0);
    const seconds = wavSeconds(Buffer.concat(chunks));
    expect(seconds).toBeGreaterThan(0.8);
    expect(seconds).toBeLessThan(6);
  });

  it('synthesises MP3 and PCM', async () => {
    const mp3 = await client.tts({ text: 'Short one.', format: 'mp3' }).collect();
    expect(mp3.byteLength).toBeGreaterThan(1000);
    const pcm = await client.tts({ text: 'Short one.', format: 'pcm', sample_rate: 16000 }).collect();
    expect(pcm.byteLength % 2).toBe(0);
    expect(pcm.byteLength / 32000).toBeGreaterThan(0.3);
  });

  it('sends inline references as msgpack and gets audio back', async () => {
    const { readFileSync } = await import('node:fs');
    const audio = await client.tts({ text: 'Cloned voice.', format: 'wav', references: [{ audio: readFileSync(SAMPLE), text: 'what time do you open on saturday' }] }).collect();
    expect(wavSeconds(audio)).toBeGreaterThan(0.4);
  });

  it('reports a bad sample rate as BadRequestError and a bad field as ValidationError or BadRequestError', async () => {
    await expect(client.tts({ text: 'x', format: 'mp3', sample_rate: 22050 }).collect()).rejects.toBeInstanceOf(BadRequestError);
    const error = await client.tts({ text: 'x', chunk_length: 5 }).collect().catch((e: unknown) => e);
    expect(error instanceof ValidationError || error instanceof BadRequestError).toBe(true);
  });

  it('streams word timestamps with absolute, increasing times', async () => {
    let last: { allWords: { text: string; startMs: number; endMs: number }[] } | undefined;
    let audioBytes = 0;
    for await (const chunk of client.ttsWithTimestamps({ text: 'One small step. Then another one.', format: 'pcm', sample_rate: 16000 })) {
      audioBytes += chunk.audio.byteLength;
      last = chunk;
    }
    expect(audioBytes).toBeGreaterThan(0);
    const words = last!.allWords;
    expect(words.map((w) => w.text.toLowerCase())).toEqual(['one', 'small', 'step', 'then', 'another', 'one']);
    for (let i = 1; i < words.length; i++) expect(words[i]!.startMs).toBeGreaterThanOrEqual(words[i - 1]!.startMs);
    expect(words.at(-1)!.endMs).toBeLessThanOrEqual(Math.ceil((audioBytes / 32) + 50));
  });

  it('speaks two utterances over one live socket, then stops', async () => {
    const session = await client.live({ format: 'pcm', sample_rate: 16000, reference_id: 'rms' });
    const events: LiveEvent[] = [];
    const draining = (async () => {
      for await (const event of session) events.push(event);
    })();
    session.send('First sentence. ');
    const first = await session.flush();
    session.send('Second sentence.');
    await session.stop();
    session.close();
    await draining;
    expect(first.outcome).toBe('spoken');
    expect(first.audioBytes).toBeGreaterThan(8000);
    const audio = events.filter((e): e is Extract<LiveEvent, { type: 'audio' }> => e.type === 'audio');
    expect(new Set(audio.map((e) => e.utterance))).toEqual(new Set([1, 2]));
    expect(events.filter((e) => e.type === 'utterance-end').map((e) => (e as { utterance: number }).utterance)).toEqual([1, 2]);
    expect(events.some((e) => e.type === 'finish')).toBe(true);
  });

  it('keeps a live session usable after finish and after cancel', async () => {
    const session = await client.live({ format: 'pcm', sample_rate: 16000 });
    const events: LiveEvent[] = [];
    const draining = (async () => {
      for await (const event of session) events.push(event);
    })();
    session.send('Before the stop.');
    await session.stop();
    session.send('A long answer that the caller will interrupt, going on and on for quite a while longer.');
    void session.flush();
    session.cancel();
    session.send('After barge in.');
    const after = await session.flush();
    session.close();
    await draining;
    expect(after.outcome).toBe('spoken');
    expect(after.audioBytes).toBeGreaterThan(4000);
    expect(events.some((e) => e.type === 'cancelled')).toBe(true);
  });

  it('streams word timings over the live with-timestamp socket', async () => {
    const session = await client.live({ format: 'pcm', sample_rate: 16000 }, { timestamps: true });
    const words: string[] = [];
    let audioBytes = 0;
    const draining = (async () => {
      for await (const event of session) {
        if (event.type !== 'audio') continue;
        audioBytes += event.audio.byteLength;
        for (const word of event.words ?? []) words.push(`${word.text.toLowerCase()}@${word.startMs}`);
      }
    })();
    session.send('Timed words here.');
    await session.stop();
    session.close();
    await draining;
    expect(audioBytes).toBeGreaterThan(8000);
    const latest = new Map<string, number>();
    for (const entry of words) latest.set(entry.split('@')[0]!, Number(entry.split('@')[1]));
    expect([...latest.keys()]).toEqual(['timed', 'words', 'here']);
    expect(latest.get('words')!).toBeGreaterThan(latest.get('timed')!);
  });

  it('refuses a live upgrade with a wrong key as AuthenticationError', async () => {
    const wrong = new SpeechClient({ baseUrl: client.options.baseUrl, apiKey: 'wrong' });
    await expect(wrong.live()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(wrong.tts({ text: 'x' }).collect()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('transcribes synthesised speech (multipart and msgpack)', async () => {
    const audio = await client.tts({ text: 'What time do you open on Saturday?', format: 'wav', sample_rate: 16000 }).collect();
    const multipart = await client.transcribe(audio, { language: 'en' });
    expect(multipart.text.toLowerCase()).toContain('saturday');
    expect(multipart.segments.length).toBeGreaterThan(0);
    const msgpack = await client.transcribe(audio, { encoding: 'msgpack' });
    expect(msgpack.text.toLowerCase()).toContain('saturday');
  });

  it('transcribes a call split at silences with segment times offset to the whole file', async () => {
    const splitting = new SpeechClient({ baseUrl: client.options.baseUrl, apiKey: DEV_KEY, asrLimits: { maxBytes: 200_000, maxDurationMs: 3_600_000, silenceSearchMs: 3_000 } });
    const whole = await client.transcribe(CALL);
    const split = await splitting.transcribe(CALL);
    expect(split.duration).toBeCloseTo(whole.duration, 1);
    for (const phrase of ['table', 'sounds good', 'bye']) expect(split.text.toLowerCase()).toContain(phrase);
    const last = split.segments.at(-1)!;
    // the second piece starts at the first silence after 4.3 s (the 200 kB limit is 6.25 s of 16 kHz audio)
    expect(last.start).toBeGreaterThan(4.3);
    expect(last.end).toBeLessThanOrEqual(split.duration + 0.01);
    for (let i = 1; i < split.segments.length; i++) expect(split.segments[i]!.start).toBeGreaterThanOrEqual(split.segments[i - 1]!.end - 0.05);
  });

  it('designs voices with decoded candidate audio', async () => {
    const candidates = await client.designVoice({ instruction: 'a calm low male voice', n: 2, reference_text: 'Hello there.' });
    expect(candidates).toHaveLength(2);
    for (const candidate of candidates) {
      expect(candidate.audio.byteLength).toBeGreaterThan(1000);
      expect(Buffer.from(candidate.audio.subarray(0, 4)).toString()).toBe('RIFF');
    }
  });

  it('creates, reads, lists, updates, uses and deletes a voice model', async () => {
    const created = await client.voiceModels.create({ title: 'Client test voice', voices: [SAMPLE], texts: ['what time do you open on saturday'], visibility: 'private', tags: ['client-test'] });
    expect(created._id).toBeTruthy();
    expect((await client.voiceModels.get(created._id)).title).toBe('Client test voice');
    await client.voiceModels.update(created._id, { title: 'Renamed voice' });
    expect((await client.voiceModels.get(created._id)).title).toBe('Renamed voice');
    const mine: string[] = [];
    for await (const model of client.voiceModels.iterate({ self: true, page_size: 1 })) mine.push(model._id);
    expect(mine).toContain(created._id);
    const audio = await client.tts({ text: 'Using my model.', format: 'wav', reference_id: created._id }).collect();
    expect(wavSeconds(audio)).toBeGreaterThan(0.4);
    await client.voiceModels.delete(created._id);
    await expect(client.voiceModels.get(created._id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('reads the wallet package and API credit', async () => {
    const pkg = await client.wallet.package();
    expect(typeof pkg.balance).toBe('number');
    const credit = await client.wallet.apiCredit();
    // The dev user starts with 100 credits, less what the tests before spent: the wallet shows the exact balance.
    const dev = (await accounts.stores.accounts.getUser('dev'))!;
    expect(credit.credit).toBe(formatMicros(dev.creditMicros));
    expect(dev.creditMicros).toBeLessThanOrEqual(100_000_000);
    expect(credit.user_id).toBe('dev');
  });
});
