import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderSetupError, speechChoice } from '../../src/cli/speech-providers.js';
import { DeepgramDouble } from '../support/deepgram-double.js';
import { shoalEntry } from '../support/shoal-entry.js';

const run = promisify(execFile);
const fixture = (name: string) => new URL(`../fixtures/calls/${name}`, import.meta.url).pathname;

function setupError(make: () => unknown): string {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderSetupError);
    return (error as Error).message;
  }
  throw new Error('no error');
}

describe('--stt / --tts', () => {
  const saved = process.env['DEEPGRAM_API_KEY'];
  afterAll(() => {
    if (saved === undefined) delete process.env['DEEPGRAM_API_KEY'];
    else process.env['DEEPGRAM_API_KEY'] = saved;
  });

  it('builds providers in failover order and says what runs where', () => {
    process.env['DEEPGRAM_API_KEY'] = 'from-env';
    const choice = speechChoice({ stt: 'deepgram:nova-2,local', tts: 'local,service', sttUrl: 'http://127.0.0.1:9' });
    expect(choice.stt[0]).toMatchObject({ provider: 'deepgram' });
    expect(choice.stt[1]).toBe('engine');
    expect(choice.tts).toEqual(['local', 'service']);
    expect(choice.embeddedRecognition).toBe(false);
    expect(choice.describe(undefined)).toBe(
      'Speech: recognition by deepgram:nova-2 at http://127.0.0.1:9, then local pocketsphinx in this process; synthesis by local flite in this process, then the self-hosted speech service in this process (/v1/tts/live)',
    );
    expect(speechChoice({ asr: 'service', serviceUrl: 'https://speech.example' }).describe('https://speech.example')).toBe(
      'Speech: recognition by the speech service at https://speech.example (/v1/asr); synthesis by the speech service at https://speech.example (/v1/tts/live)',
    );
  });

  it('gives one line naming what to fix', () => {
    delete process.env['DEEPGRAM_API_KEY'];
    expect(setupError(() => speechChoice({ stt: 'deepgram' }))).toBe('deepgram: no API key: set DEEPGRAM_API_KEY');
    expect(setupError(() => speechChoice({ stt: 'deepgram', sttKeyFile: 'k', tts: 'deepgram' }))).toMatch(/^--tts deepgram: deepgram has no synthesis/);
    expect(setupError(() => speechChoice({ stt: 'whisperx' }))).toMatch(/^--stt whisperx: unknown provider; choose from deepgram, openai/);
    expect(setupError(() => speechChoice({ stt: 'deepgram', sttUrl: 'nope', sttKeyFile: 'k' }))).toMatch(/^--stt-url nope: not a URL/);
  });
});

describe('shoal talk --stt deepgram', () => {
  let double: DeepgramDouble;
  beforeAll(async () => {
    double = await DeepgramDouble.start({ keys: ['test-key'], script: ['I would like to book a table.', 'Friday at seven.', 'Four people.', 'Yes.', 'Thank you.'] });
  });
  afterAll(() => double.close());

  it('hears a phone call through Deepgram at its own rate and encoding, and reports the provider per turn', async () => {
    const { stdout } = await run('node', [shoalEntry(), 'talk', '--in', fixture('booking-8k-ulaw.wav'), '--json', '--fast', '--stt', 'deepgram:nova-3', '--stt-url', double.url], {
      timeout: 120_000,
      env: { ...process.env, DEEPGRAM_API_KEY: 'test-key' },
    });
    const turns = stdout.trim().split('\n').map((line) => JSON.parse(line) as { user_text: string; metrics: { sttProvider?: string } });
    const heard = turns.filter((turn) => turn.user_text);
    expect(heard.length).toBeGreaterThanOrEqual(2);
    expect(heard[0]!.user_text).toBe('I would like to book a table.');
    for (const turn of heard) expect(turn.metrics.sttProvider).toBe('deepgram');
    expect(double.seen.length).toBeGreaterThanOrEqual(1);
    expect(double.seen[0]!.query.get('encoding')).toBe('mulaw');
    expect(double.seen[0]!.query.get('sample_rate')).toBe('8000');
    expect(double.seen[0]!.query.get('model')).toBe('nova-3');
  }, 120_000);

  it('a missing key is one line naming the variable, before anything starts', async () => {
    const failed = await run('node', [shoalEntry(), 'talk', '--in', fixture('booking-8k-ulaw.wav'), '--fast', '--stt', 'deepgram'], {
      timeout: 60_000,
      env: { ...process.env, DEEPGRAM_API_KEY: '' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect((failed as { code: number }).code).toBe(1);
    expect((failed as { stderr: string }).stderr.trim()).toBe('shoal: deepgram: no API key: set DEEPGRAM_API_KEY');
  }, 60_000);
});
