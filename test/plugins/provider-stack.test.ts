import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedAgentStack, type EmbeddedAgentStack } from '../../src/agent/index.js';
import { cartesia } from '../../plugins/cartesia/index.js';
import { deepgram } from '../../plugins/deepgram/index.js';

describe('the embedded stack with providers', () => {
  let stack: EmbeddedAgentStack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it('starts nothing of the speech service when no `service` provider is chosen', async () => {
    // The providers open their sockets at the first call: these URLs are never reached here.
    stack = await createEmbeddedAgentStack({ stt: deepgram({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' }), tts: cartesia({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' }) });
    expect(stack.serviceUrl).toBeUndefined();
    expect(stack.client).toBeUndefined();
    expect(stack.agentFor({ name: 'x', respond: () => { throw new Error('not called'); } })).toBeDefined();
  }, 60_000);

  it("closes the providers it was given when it closes (their sockets would keep the process alive)", async () => {
    const tts = cartesia({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' });
    let closed = 0;
    const close = tts.close.bind(tts);
    tts.close = () => (closed++, close());
    stack = await createEmbeddedAgentStack({ stt: deepgram({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' }), tts });
    await stack.close();
    stack = undefined;
    expect(closed).toBe(1);
  }, 60_000);

  it('starts the self-hosted service when one is chosen, for recognition or synthesis', async () => {
    stack = await createEmbeddedAgentStack({ stt: deepgram({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' }), tts: [cartesia({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' }), 'service'] });
    expect(stack.serviceUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    expect((await fetch(`${stack.serviceUrl}/healthz`)).status).toBe(200);
  }, 60_000);
});
