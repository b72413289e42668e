import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ExposureError, exposureProblems, isLoopback } from '../../src/cli/exposure.js';
import { startAgentApp } from '../../src/cli/run-agent.js';
import { checkUpgrade } from '../../src/transports/upgrade-guard.js';
import { safeEqual } from '../../src/transports/telephony/stream-tokens.js';

describe('an agent on an address other machines reach', () => {
  it('refuses to start without an access token and a stream key, saying what to set', async () => {
    const error = await startAgentApp({ agent: 'echo', host: '0.0.0.0', port: 0, mode: 'balanced' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExposureError);
    expect((error as Error).message).toMatch(/browser calls need a token: set SHOAL_AGENT_TOKEN \(or --access-token-file FILE\), or pass --public-calls/);
    expect((error as Error).message).toMatch(/carriers' media streams need a key: set SHOAL_STREAM_KEY/);
  });

  it('needs TWILIO_AUTH_TOKEN for a --public-url, even with --public-calls', () => {
    expect(exposureProblems({ host: '0.0.0.0', publicCalls: true, publicUrl: 'https://a.example' })).toEqual([
      expect.stringMatching(/^--public-url answers Twilio's webhook, which hands out stream tokens: set TWILIO_AUTH_TOKEN/),
    ]);
    expect(exposureProblems({ host: '10.0.0.5', accessToken: 't', streamKey: 'k', publicUrl: 'https://a.example', twilioAuthToken: 'x' })).toEqual([]);
    expect(exposureProblems({ host: '::', publicCalls: true })).toEqual([]);
  });

  it('needs TWILIO_AUTH_TOKEN for a public --public-url on a loopback --host (a tunnel), and refuses to start without it', async () => {
    const tunnel = { host: '127.0.0.1', publicUrl: 'https://abc.ngrok.app' };
    expect(exposureProblems(tunnel)).toEqual([expect.stringMatching(/^--public-url answers Twilio's webhook/)]);
    expect(exposureProblems({ ...tunnel, twilioAuthToken: 'x' })).toEqual([]);
    expect(exposureProblems({ host: '127.0.0.1', publicUrl: 'http://127.0.0.1:3000' })).toEqual([]);
    expect(exposureProblems({ host: '127.0.0.1', publicUrl: 'not a url' })).toHaveLength(1);
    const saved = process.env['TWILIO_AUTH_TOKEN'];
    delete process.env['TWILIO_AUTH_TOKEN'];
    try {
      const error = await startAgentApp({ agent: 'echo', port: 0, mode: 'balanced', ...tunnel }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExposureError);
      expect((error as Error).message).toMatch(/set TWILIO_AUTH_TOKEN/);
    } finally {
      if (saved !== undefined) process.env['TWILIO_AUTH_TOKEN'] = saved;
    }
  });

  it('leaves loopback alone', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopback(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.4', 'example.com']) expect(isLoopback(host)).toBe(false);
    expect(exposureProblems({ host: '127.0.0.1' })).toEqual([]);
  });
});

describe('the browser socket guard and key comparison', () => {
  const request = (headers: Record<string, string>, url = '/ws') => ({ headers: { host: 'agent.example:3000', ...headers }, url }) as unknown as IncomingMessage;

  it('requires an Origin once an origin list is in force', () => {
    expect(checkUpgrade(request({}), { allowedOrigins: ['https://app.example'] })).toMatchObject({ status: 403 });
    expect(checkUpgrade(request({ origin: 'https://app.example' }), { allowedOrigins: ['https://app.example'] })).toBeNull();
    expect(checkUpgrade(request({}), { allowedOrigins: [] })).toBeNull();
  });

  it('compares keys of any lengths without throwing (digests of fixed length)', () => {
    expect(safeEqual('key', 'key')).toBe(true);
    expect(safeEqual('key', 'a much longer key than that')).toBe(false);
    expect(safeEqual('', 'x')).toBe(false);
  });
});
