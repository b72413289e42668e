import { createRequire } from 'node:module';
import type CartesiaClient from '@cartesia/cartesia-js';
import { afterEach, describe, expect, it } from 'vitest';
import { CartesiaDouble } from '../support/cartesia-double.js';
import { spokenAudio, tlsCertificate } from '../support/synthesis-double-kit.js';

// The SDK's Node path finds `ws` with `require`, which its ES module build lacks: load its CommonJS build.
const load = createRequire(import.meta.url);
const Cartesia = (load('@cartesia/cartesia-js') as { default: typeof CartesiaClient }).default;
const { TTSWS } = load('@cartesia/cartesia-js/resources/tts/ws') as typeof import('@cartesia/cartesia-js/resources/tts/ws');

/** The double speaks Cartesia's protocol as the official SDK (`@cartesia/cartesia-js`, which always opens `wss://`) expects it. */
describe('Cartesia double, checked with @cartesia/cartesia-js', () => {
  let double: CartesiaDouble | undefined;
  afterEach(async () => {
    await double?.close();
    double = undefined;
  });

  it('streams a context: chunks of raw PCM, word timestamps, then done', async () => {
    double = await CartesiaDouble.start({ tls: true });
    const client = new Cartesia({ apiKey: 'test-key', baseURL: double.url });
    const ws = await client.tts.websocket({ ca: tlsCertificate });
    const context = ws.context({ model_id: 'sonic-2', voice: { mode: 'id', id: 'a-voice' }, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 }, add_timestamps: true });
    await context.push({ transcript: 'Hello there. ' });
    await context.push({ transcript: 'Table for two? ' });
    await context.no_more_inputs();
    const events: Array<Record<string, unknown>> = [];
    let bytes = 0;
    for await (const event of context.receive()) {
      events.push(event as unknown as Record<string, unknown>);
      if (event.type === 'chunk') bytes += event.audio!.length;
    }
    ws.close();
    expect(events.at(-1)!['type']).toBe('done');
    const expected = spokenAudio('Hello there.', 16000, 20).samples.length + spokenAudio('Table for two?', 16000, 20).samples.length;
    expect(bytes).toBe(expected * 2);
    const words = events.filter((event) => event['type'] === 'timestamps').flatMap((event) => (event['word_timestamps'] as { words: string[] }).words);
    expect(words).toEqual(['Hello', 'there.', 'Table', 'for', 'two?']);
    expect(double.seen[0]!.headers['cartesia-version']).toBeTruthy();
    expect(double.seen[0]!.messages.map((message) => message['continue'])).toEqual([true, true, false]);
  });

  it('refuses a bad key at the upgrade, as the SDK sees it', async () => {
    double = await CartesiaDouble.start({ tls: true });
    const client = new Cartesia({ apiKey: 'wrong', baseURL: double.url });
    const ws = new TTSWS(client, { ca: tlsCertificate });
    const errors: string[] = [];
    ws.on('error', (error) => errors.push(error.message));
    await expect(ws.connect()).rejects.toThrow(/401/);
    expect(errors.join()).toMatch(/401/);
  });
});
