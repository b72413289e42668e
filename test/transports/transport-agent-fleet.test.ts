import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import twilio from 'twilio';
import { WebSocket } from 'ws';
import { startAgentApp, type AgentApp } from '../../src/cli/run-agent.js';
import { startEmbeddedService, type EmbeddedService } from '../../src/service/index.js';
import { twilioStart } from '../support/twilio-stream-messages.js';

/**
 * Two `shoal agent` instances behind one load balancer: Twilio's webhook is answered by one, the media stream
 * lands on the other. With the same SHOAL_STREAM_SECRET the call works; with different ones it is refused cleanly.
 */
const publicUrl = 'https://agents.example.test';
const authToken = 'twilio-auth-token-for-tests';
const secret = 'a'.repeat(40);

let service: EmbeddedService;
const apps: AgentApp[] = [];
const sockets: WebSocket[] = [];

async function agent(streamSecret: string, maxCalls = 4): Promise<AgentApp> {
  const app = await startAgentApp({
    agent: 'receptionist',
    host: '127.0.0.1',
    port: 0,
    mode: 'low-latency',
    publicUrl,
    streamSecret,
    twilioAuthToken: authToken,
    maxCalls,
    serviceUrl: service.url,
    apiKey: service.apiKey,
  });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  service = await startEmbeddedService({ logLevel: 'silent', warmUp: false });
}, 60_000);
afterAll(async () => {
  for (const ws of sockets) ws.terminate();
  for (const app of apps) await app.close();
  await service?.close();
});

/** Twilio's answer webhook, signed as Twilio signs it; the TwiML it answers. */
async function answer(app: AgentApp, callSid: string): Promise<string> {
  const params = { CallSid: callSid, From: '+14155550111', To: '+14155550100', AccountSid: 'AC0001' };
  const response = await fetch(`${app.url}twilio/voice`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(authToken, `${publicUrl}/twilio/voice`, params) },
    body: new URLSearchParams(params),
  });
  expect(response.status).toBe(200);
  return response.text();
}

function parameters(twiml: string): Record<string, string> {
  return Object.fromEntries([...twiml.matchAll(/<Parameter name="([^"]+)" value="([^"]*)"\/>/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]));
}

/** Opens the media stream on `app` and collects what comes back until it closes or `until` holds. */
async function stream(app: AgentApp, start: object, until: (media: number) => boolean, keepOpen = false): Promise<{ media: number; close?: { code: number; reason: string } }> {
  const ws = new WebSocket(`${app.url.replace('http', 'ws')}telephony`);
  let media = 0;
  let close: { code: number; reason: string } | undefined;
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  ws.send(JSON.stringify(start));
  await new Promise<void>((resolve) => {
    ws.on('message', (data) => {
      if ((JSON.parse(String(data)) as { event: string }).event === 'media') media++;
      if (until(media)) resolve();
    });
    ws.on('close', (code, reason) => {
      close = { code, reason: String(reason) };
      resolve();
    });
  });
  if (keepOpen) sockets.push(ws);
  else ws.close();
  return { media, ...(close ? { close } : {}) };
}

describe('phone agents behind a load balancer', () => {
  it('a stream whose webhook another instance answered is admitted when both share the stream secret', async () => {
    const [a, b] = [await agent(secret), await agent(secret)];
    const callSid = `CA${'1'.repeat(32)}`;
    const given = parameters(await answer(a, callSid));
    expect(given['token']).toBeTruthy();
    // The greeting comes back from B: the call works with no state handed from A to B.
    const result = await stream(b, twilioStart(given, callSid), (media) => media >= 10);
    expect(result.close).toBeUndefined();
    expect(result.media).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it('an instance with another secret refuses the stream cleanly (1008, no call started)', async () => {
    const [a, c] = [await agent(secret), await agent('b'.repeat(40))];
    const callSid = `CA${'2'.repeat(32)}`;
    const given = parameters(await answer(a, callSid));
    const result = await stream(c, twilioStart(given, callSid), () => false);
    expect(result.close?.code).toBe(1008);
    expect(result.close?.reason).toBe('stream not authorised');
    expect(result.media).toBe(0);
    expect(c.admission.active).toBe(0);
  }, 60_000);

  it('a full instance rejects the call busy at the webhook, so Twilio can fail over, and /readyz says 503', async () => {
    const full = await agent(secret, 1);
    const callSid = `CA${'3'.repeat(32)}`;
    const first = parameters(await answer(full, callSid));
    await stream(full, twilioStart(first, callSid), (media) => media >= 1, true);
    expect((await fetch(`${full.url}readyz`)).status).toBe(503);
    expect(await answer(full, `CA${'4'.repeat(32)}`)).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="busy"/></Response>');
  }, 60_000);

  it('refuses a stream secret too short to be a key', async () => {
    await expect(agent('short')).rejects.toThrow(/stream secret is 5 characters; use at least 32/);
  });
});
