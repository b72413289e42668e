import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CartesiaDouble } from '../support/cartesia-double.js';
import { DeepgramDouble } from '../support/deepgram-double.js';
import { ElevenLabsDouble } from '../support/elevenlabs-double.js';
import { startOpenAiAudioDouble } from '../support/openai-audio-double.js';
import { speechChoice } from '../../src/cli/speech-providers.js';
import { createServer } from 'node:net';
import { shoalEntry } from '../support/shoal-entry.js';

/** The URL of a port nothing listens on. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const run = promisify(execFile);
const fixture = new URL('../fixtures/calls/booking-8k-ulaw.wav', import.meta.url).pathname;
const script = ['I would like to book a table.', 'Friday at seven.', 'Four people.', 'Yes.', 'Thank you.'];

interface Turn {
  user_text: string;
  agent_text: string;
  metrics: { sttProvider?: string; ttsProvider?: string };
}

/** `shoal talk` on the booking call with recognition by the Deepgram double; its turns, stderr and exit code. */
async function talk(deepgramUrl: string, args: string[], env: Record<string, string>) {
  const result = await run('node', [shoalEntry(), 'talk', '--in', fixture, '--json', '--fast', '--stt', 'deepgram', '--stt-url', deepgramUrl, ...args], {
    timeout: 120_000,
    env: { ...process.env, DEEPGRAM_API_KEY: 'test-key', CARTESIA_API_KEY: '', ELEVENLABS_API_KEY: '', ...env },
  }).then(
    ({ stdout, stderr }) => ({ stdout, stderr, code: 0 }),
    (error: { stdout: string; stderr: string; code: number }) => ({ stdout: error.stdout, stderr: error.stderr, code: error.code }),
  );
  const turns = result.stdout.trim() ? result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Turn) : [];
  return { ...result, turns, spoken: turns.filter((turn) => turn.agent_text) };
}

describe('the start-up key check of each provider, on its double', () => {
  const saved = { ...process.env };
  afterAll(() => {
    for (const name of ['DEEPGRAM_API_KEY', 'CARTESIA_API_KEY', 'ELEVENLABS_API_KEY', 'OPENAI_API_KEY']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });
  const lines = async (options: Parameters<typeof speechChoice>[0]) => {
    const warnings: string[] = [];
    try {
      await speechChoice(options).checkKeys((line) => warnings.push(line), 2000);
    } catch (error) {
      return [...warnings, `stop: ${(error as Error).message}`];
    }
    return warnings;
  };

  it('takes a good key, stops on a rejected one, warns on one it cannot check', async () => {
    const [deepgram, cartesia, elevenlabs, openai] = await Promise.all([DeepgramDouble.start(), CartesiaDouble.start(), ElevenLabsDouble.start(), startOpenAiAudioDouble({ apiKey: 'test-key', transcript: 'Hi.' })]);
    const closed = await closedPort();
    try {
      process.env['DEEPGRAM_API_KEY'] = process.env['CARTESIA_API_KEY'] = process.env['ELEVENLABS_API_KEY'] = process.env['OPENAI_API_KEY'] = 'test-key';
      process.env['ELEVENLABS_BASE_URL'] = elevenlabs.url;
      expect(await lines({ stt: 'deepgram', sttUrl: deepgram.url, tts: 'cartesia,elevenlabs', ttsUrl: cartesia.url })).toEqual([]);
      expect(await lines({ stt: 'openai', sttUrl: openai.url, tts: 'local' })).toEqual([]);
      process.env['DEEPGRAM_API_KEY'] = process.env['ELEVENLABS_API_KEY'] = process.env['OPENAI_API_KEY'] = 'wrong';
      expect(await lines({ stt: 'deepgram', sttUrl: deepgram.url })).toEqual(['stop: deepgram: the API key was rejected (HTTP 401: Invalid credentials.) (check DEEPGRAM_API_KEY)']);
      expect(await lines({ stt: 'local', tts: 'elevenlabs' })).toEqual(['stop: elevenlabs: the API key was rejected (HTTP 401: Invalid API key) (check ELEVENLABS_API_KEY)']);
      expect(await lines({ stt: 'openai', sttUrl: openai.url })).toEqual(['stop: openai: the API key was rejected (HTTP 401: Incorrect API key provided.) (check OPENAI_API_KEY)']);
      expect(await lines({ stt: 'openai,local', sttUrl: openai.url })).toEqual([
        'openai: the API key was rejected (HTTP 401: Incorrect API key provided.) (check OPENAI_API_KEY); the next provider of the list takes over',
      ]);
      expect(await lines({ stt: 'local', tts: 'cartesia', ttsUrl: closed })).toEqual([`cartesia: the key could not be checked (cannot reach ${closed} (ECONNREFUSED)); going on`]);
    } finally {
      await Promise.all([deepgram.close(), cartesia.close(), elevenlabs.close(), openai.close()]);
    }
  }, 30_000);
});

describe('shoal talk --tts cartesia / elevenlabs, with the start-up key check', () => {
  let deepgram: DeepgramDouble;
  let cartesia: CartesiaDouble;
  let elevenlabs: ElevenLabsDouble;
  beforeAll(async () => {
    [deepgram, cartesia, elevenlabs] = await Promise.all([DeepgramDouble.start({ script }), CartesiaDouble.start(), ElevenLabsDouble.start()]);
  });
  afterAll(async () => {
    await Promise.all([deepgram.close(), cartesia.close(), elevenlabs.close()]);
  });

  it('speaks every reply through the Cartesia double (--tts-url), each on its own context', async () => {
    const before = cartesia.seen.length;
    const { code, stderr, spoken } = await talk(deepgram.url, ['--tts', 'cartesia', '--tts-url', cartesia.url], { CARTESIA_API_KEY: 'test-key' });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(spoken.length).toBeGreaterThanOrEqual(2);
    for (const turn of spoken) expect(turn.metrics.ttsProvider).toBe('cartesia');
    const contexts = new Set(cartesia.seen.slice(before).flatMap((seen) => seen.messages.map((message) => message['context_id'])));
    expect(contexts.size).toBeGreaterThanOrEqual(spoken.length);
  }, 120_000);

  it('a key the provider rejects stops the command at start with one line naming the variable', async () => {
    const rejected = await talk(deepgram.url, ['--tts', 'cartesia', '--tts-url', cartesia.url], { CARTESIA_API_KEY: 'wrong' });
    expect(rejected.code).toBe(1);
    expect(rejected.stdout).toBe('');
    expect(rejected.stderr.trim()).toBe('shoal: cartesia: the API key was rejected (HTTP 401: Invalid API key) (check CARTESIA_API_KEY)');
  }, 120_000);

  it('with a fallback after it, a rejected key is a warning and the next provider (ElevenLabs, by ELEVENLABS_BASE_URL) speaks', async () => {
    const failover = await talk(deepgram.url, ['--tts', 'cartesia,elevenlabs', '--tts-url', cartesia.url], { CARTESIA_API_KEY: 'wrong', ELEVENLABS_API_KEY: 'test-key', ELEVENLABS_BASE_URL: elevenlabs.url });
    expect(failover.stderr.trim()).toBe('shoal: warning: cartesia: the API key was rejected (HTTP 401: Invalid API key) (check CARTESIA_API_KEY); the next provider of the list takes over');
    expect(failover.code).toBe(0);
    expect(failover.spoken.length).toBeGreaterThanOrEqual(2);
    for (const turn of failover.spoken) expect(turn.metrics.ttsProvider).toBe('elevenlabs');

  }, 120_000);
});
