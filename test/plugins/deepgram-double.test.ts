import { afterEach, describe, expect, it } from 'vitest';
import { DeepgramClient } from '@deepgram/sdk';
import { DeepgramDouble } from '../support/deepgram-double.js';
import { toneUtterance } from '../support/provider-audio.js';

/** The double speaks Deepgram's protocol as the official SDK (`@deepgram/sdk`) expects it. */
describe('Deepgram double, checked with @deepgram/sdk', () => {
  let double: DeepgramDouble | undefined;
  afterEach(async () => {
    await double?.close();
    double = undefined;
  });

  it('streams results, answers Finalize with from_finalize, and sends Metadata on CloseStream', async () => {
    double = await DeepgramDouble.start({ script: ['Book a table for two.'] });
    const client = new DeepgramClient({ apiKey: 'test-key', baseUrl: double.url.replace('http', 'ws') });
    const connection = await client.listen.v1.connect({ model: 'nova-3', encoding: 'mulaw', sample_rate: 8000, interim_results: 'true', vad_events: 'true', endpointing: false, keyterm: 'table', reconnectAttempts: 0 } as never);
    const messages: Array<Record<string, unknown>> = [];
    const closed = new Promise<void>((resolve) => connection.on('close', () => resolve()));
    connection.on('message', (message) => messages.push(message as unknown as Record<string, unknown>));
    connection.connect();
    await connection.waitForOpen();
    const { encodeMuLaw } = await import('../../src/audio/index.js');
    for (const frame of toneUtterance(8000, 600, 100)) connection.sendMedia(encodeMuLaw(frame.samples));
    connection.sendFinalize({ type: 'Finalize' });
    await until(() => messages.some((message) => message['from_finalize'] === true));
    connection.sendCloseStream({ type: 'CloseStream' });
    await closed;
    expect(messages.map((message) => message['type'])).toContain('SpeechStarted');
    const interims = messages.filter((message) => message['type'] === 'Results' && message['is_final'] === false);
    expect(interims.length).toBeGreaterThan(0);
    const final = messages.find((message) => message['from_finalize'] === true) as { channel: { alternatives: Array<{ transcript: string; words: unknown[] }> }; is_final: boolean };
    expect(final.is_final).toBe(true);
    expect(final.channel.alternatives[0]!.transcript).toBe('Book a table for two.');
    expect(final.channel.alternatives[0]!.words).toHaveLength(5);
    expect(messages.at(-1)!['type']).toBe('Metadata');
    expect(double.seen[0]!.headers.authorization).toBe('Token test-key');
    expect(double.seen[0]!.query.get('keyterm')).toBe('table');
    expect(double.seen[0]!.controls).toEqual(['Finalize', 'CloseStream']);
  });

  it('refuses a bad key with 401 before the socket opens', async () => {
    double = await DeepgramDouble.start();
    const client = new DeepgramClient({ apiKey: 'wrong', baseUrl: double.url.replace('http', 'ws') });
    const connection = await client.listen.v1.connect({ model: 'nova-3', reconnectAttempts: 0 } as never);
    const failed = new Promise<unknown>((resolve) => {
      connection.on('error', resolve);
      connection.on('close', resolve);
    });
    connection.connect();
    await failed;
    expect(connection.readyState).not.toBe(1);
    expect(double.seen).toHaveLength(0);
  });
});

async function until(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
