import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CartesiaDouble } from '../support/cartesia-double.js';
import { DeepgramDouble } from '../support/deepgram-double.js';
import { shoalEntry } from '../support/shoal-entry.js';

const run = promisify(execFile);

// `shoal test` puts a simulated phone caller through the echo agent, hearing through the Deepgram double and
// speaking through the Cartesia double: the verdicts come from what the providers heard and said.
describe('shoal test --stt deepgram --tts cartesia', () => {
  let stt: DeepgramDouble;
  let tts: CartesiaDouble;
  beforeAll(async () => {
    stt = await DeepgramDouble.start({ keys: ['dg-key'], script: ['book a table for two', 'goodbye'] });
    tts = await CartesiaDouble.start({ keys: ['cartesia-key'] });
  });
  afterAll(() => Promise.all([stt.close(), tts.close()]));

  it('runs a scenario suite on the doubles', async () => {
    const { stdout } = await run(
      'node',
      [shoalEntry(), 'test', 'test/scenarios-providers', '--json', '--stt', 'deepgram', '--stt-url', stt.url, '--tts', 'cartesia', '--tts-url', tts.url],
      { timeout: 150_000, env: { ...process.env, DEEPGRAM_API_KEY: 'dg-key', CARTESIA_API_KEY: 'cartesia-key' } },
    );
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as { passed?: boolean; failures?: unknown[]; report?: { suite: { passed: number; runs: number } } });
    expect(lines[0]).toMatchObject({ passed: true, failures: [] });
    expect(lines.at(-1)!.report!.suite).toMatchObject({ runs: 1, passed: 1 });
    // The phone line reached Deepgram as its own mu-law at 8 kHz, and each utterance was finalised at Shoal's endpoint.
    expect(stt.seen[0]!.query.get('encoding')).toBe('mulaw');
    expect(stt.seen[0]!.query.get('sample_rate')).toBe('8000');
    expect(stt.seen.flatMap((socket) => socket.controls).filter((control) => control === 'Finalize').length).toBeGreaterThanOrEqual(2);
    // The agent's words were spoken by Cartesia.
    const spoken = tts.seen.flatMap((socket) => socket.messages.map((message) => message['transcript'])).join('');
    expect(spoken).toContain('You said: book a table for two');
    expect(spoken).toContain('You said: goodbye');
  }, 180_000);
});
