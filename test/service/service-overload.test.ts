import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricOf } from '../support/prometheus-text.js';
import { postJson, startService, type RunningService } from '../support/service-harness.js';

let server: RunningService;
beforeAll(async () => {
  server = await startService({ warmUp: false, limits: { ttsStreams: 2 } });
});
afterAll(async () => {
  await server.close();
});

const longText = 'A long answer keeps the engine busy for a while. '.repeat(40);

describe('TTS overload', () => {
  it('refuses a response beyond ttsStreams at once with 503 and Retry-After, and serves the admitted ones whole', async () => {
    const refusedBefore = await metricOf(server.url, 'shoal_service_refusals_total{status="503"}');
    const admitted = await Promise.all([0, 1].map(() => postJson(`${server.url}/v1/tts`, { text: longText, format: 'pcm', sample_rate: 16000 })));
    expect(admitted.map((response) => response.status)).toEqual([200, 200]);
    let admittedDone = 0;
    const reading = admitted.map((response) => response.arrayBuffer().finally(() => admittedDone++));
    const refused = await postJson(`${server.url}/v1/tts`, { text: 'One more.', format: 'pcm' });
    // At once: refused while both admitted responses are still being synthesised (not queued behind them).
    expect(admittedDone).toBe(0);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({ status: 503, message: 'the server is synthesising 2 responses, its limit; retry in a second' });
    expect(await metricOf(server.url, 'shoal_service_refusals_total{status="503"}')).toBe(refusedBefore + 1);
    const bodies = await Promise.all(reading);
    // 40 sentences of about 2.5 s each at 16 kHz, 16-bit: well over a minute of audio, none of it cut.
    for (const body of bodies) expect(body.byteLength / 32_000).toBeGreaterThan(60);
    const again = await postJson(`${server.url}/v1/tts`, { text: 'Room again.', format: 'pcm' });
    expect(again.status).toBe(200);
    await again.arrayBuffer();
  }, 120_000);
});
