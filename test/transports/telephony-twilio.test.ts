import { Subject } from 'rxjs';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { AgentEvent } from '../../src/agent/index.js';
import type { TransportEvent } from '../../src/agent/contracts.js';
import { decodeMuLaw } from '../../src/audio/index.js';
import { startDemoServer, type DemoServer } from '../../src/transports/browser/index.js';
import type { CallRequest } from '../../src/transports/call-request.js';
import {
  CallControlError,
  placeCall,
  runPhoneCall,
  StreamRefusedError,
  StreamTokens,
  TwilioCallControl,
  TwilioWebhooks,
  type TelephonyTransport,
} from '../../src/transports/telephony/index.js';
import { FakeTwilioApi } from '../support/twilio-fake-api.js';

const accountSid = `AC${'1'.repeat(32)}`;
const authToken = 'test-auth-token-0123456789abcdef';
const publicUrl = 'https://shoal.example.test';

interface Call {
  transport: TelephonyTransport;
  request: CallRequest;
  events: TransportEvent[];
}
const calls: Call[] = [];
const errors: unknown[] = [];
const logs: string[] = [];
const tokens = new StreamTokens();
const answered: Array<{ callSid: string; answeredBy: string }> = [];
let server: DemoServer;
const api = new FakeTwilioApi(accountSid, authToken);

beforeAll(async () => {
  await api.start();
  const webhooks = new TwilioWebhooks({
    publicUrl,
    authToken,
    tokens,
    agent: 'support',
    mode: 'low-latency',
    log: (line) => logs.push(line),
    onAnsweredBy: (callSid, answeredBy) => answered.push({ callSid, answeredBy }),
  });
  server = await startDemoServer({
    port: 0,
    agents: { default: 'support', agents: [{ name: 'support' }] },
    routes: [webhooks.handle],
    streamTokens: tokens,
    onError: (error) => errors.push(error),
    startCall: (transport, request) => {
      const call: Call = { transport: transport as TelephonyTransport, request, events: [] };
      transport.events$.subscribe((event) => call.events.push(event));
      calls.push(call);
      return { agent: request.agent ?? 'support', mode: request.mode ?? 'balanced', stop: () => undefined };
    },
  });
});
afterAll(async () => {
  await server?.close();
  await api.close();
});

/** POSTs a form to a webhook as Twilio would, signed over the public URL unless `signature` is given. */
async function webhook(path: string, params: Record<string, string>, options: { signature?: string; headers?: Record<string, string> } = {}) {
  const signature = options.signature ?? twilio.getExpectedTwilioSignature(authToken, `${publicUrl}${path}`, params);
  return fetch(`${server.url}${path.slice(1)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature, ...options.headers },
    body: new URLSearchParams(params).toString(),
  });
}

const voiceParams = (callSid: string) => ({ AccountSid: accountSid, CallSid: callSid, From: '+14155550123', To: '+14155550199', CallStatus: 'ringing', Direction: 'inbound' });

/** The `<Stream>`'s url and `<Parameter>`s of a TwiML answer. */
function streamOf(twiml: string): { url: string; parameters: Record<string, string> } {
  expect(twiml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><Response><Connect><Stream /);
  const url = /<Stream url="([^"]+)"/.exec(twiml)![1]!;
  const parameters = Object.fromEntries([...twiml.matchAll(/<Parameter name="([^"]+)" value="([^"]+)"\/>/g)].map((m) => [m[1]!, m[2]!]));
  return { url, parameters };
}

async function openStream(callSid: string, parameters: Record<string, string>) {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}telephony`);
  const received: Array<{ event: string; media?: { payload: string }; mark?: { name: string } }> = [];
  ws.on('message', (data) => received.push(JSON.parse(String(data))));
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  ws.send(
    JSON.stringify({
      event: 'start',
      streamSid: `MZ${callSid.slice(2)}`,
      start: { streamSid: `MZ${callSid.slice(2)}`, callSid, accountSid, tracks: ['inbound'], customParameters: parameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
    }),
  );
  return { ws, received, closed };
}

/** An inbound call answered through the webhook, its stream started: the call and the carrier's side of the socket. */
async function answer(callSid: string) {
  const response = await webhook('/twilio/voice', voiceParams(callSid));
  const { parameters } = streamOf(await response.text());
  const before = calls.length;
  const stream = await openStream(callSid, parameters);
  await expect.poll(() => calls.length).toBe(before + 1);
  let closedAt = 0;
  void stream.closed.then(() => (closedAt = Date.now()));
  return { call: calls.at(-1)!, ...stream, closedAt: () => closedAt };
}

const marks = (received: Array<{ event: string; mark?: { name: string } }>) => received.filter((m) => m.event === 'mark').map((m) => m.mark!.name);
const echo = (ws: WebSocket, name: string) => ws.send(JSON.stringify({ event: 'mark', streamSid: 'MZ', mark: { name } }));

/** Energy of `samples` at `hz` (Goertzel), relative to the signal's own energy. */
function toneShare(samples: Int16Array, hz: number, rate: number): number {
  const k = (2 * Math.cos((2 * Math.PI * hz) / rate));
  let s1 = 0;
  let s2 = 0;
  let total = 0;
  for (const x of samples) {
    const s0 = x + k * s1 - s2;
    s2 = s1;
    s1 = s0;
    total += x * x;
  }
  const power = s1 * s1 + s2 * s2 - k * s1 * s2;
  return power / (total * samples.length / 2);
}

describe('Twilio answer webhook and stream security', () => {
  it('answers POST /twilio/voice with <Connect><Stream> carrying traceparent, agent, mode and a stream token', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const response = await webhook('/twilio/voice?agent=receptionist', voiceParams('CA100'), { headers: { traceparent } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/xml');
    const twiml = await response.text();
    const stream = streamOf(twiml);
    expect(stream.url).toBe('wss://shoal.example.test/telephony');
    expect(twiml).toContain('statusCallback="https://shoal.example.test/twilio/status"');
    expect(stream.parameters).toMatchObject({ traceparent, agent: 'receptionist', mode: 'low-latency' });
    expect(stream.parameters['token']).toMatch(/^[0-9a-z]+\.[\w-]+$/);

    const fresh = streamOf(await (await webhook('/twilio/voice', voiceParams('CA101'))).text());
    expect(fresh.parameters['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(fresh.parameters['traceparent']).not.toBe(traceparent);
    expect(fresh.parameters['agent']).toBe('support');

    const before = calls.length;
    await openStream('CA100', stream.parameters);
    await expect.poll(() => calls.length).toBe(before + 1);
    expect(calls.at(-1)!.request).toMatchObject({ traceparent, agent: 'receptionist', mode: 'low-latency' });
  });

  it('refuses webhooks without a valid X-Twilio-Signature (403) and answers nothing', async () => {
    const forged = await webhook('/twilio/voice', voiceParams('CA102'), { signature: twilio.getExpectedTwilioSignature('another-token', `${publicUrl}/twilio/voice`, voiceParams('CA102')) });
    expect(forged.status).toBe(403);
    expect(await forged.text()).not.toContain('<Stream');
    const tampered = await fetch(`${server.url}twilio/voice`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(authToken, `${publicUrl}/twilio/voice`, voiceParams('CA102')) },
      body: new URLSearchParams({ ...voiceParams('CA102'), From: '+19995550000' }).toString(),
    });
    expect(tampered.status).toBe(403);
    const unsigned = await fetch(`${server.url}twilio/voice`, { method: 'POST', body: new URLSearchParams(voiceParams('CA102')).toString() });
    expect(unsigned.status).toBe(403);
    expect((await fetch(`${server.url}twilio/voice`)).status).toBe(405);
  });

  it('refuses a stream without a token, with a forged one, or with another call\'s', async () => {
    const { parameters } = streamOf(await (await webhook('/twilio/voice', voiceParams('CA103'))).text());
    const before = calls.length;
    const attempts = [
      openStream('CA103', { ...parameters, token: '' }),
      openStream('CA103', { ...parameters, token: `${parameters['token']!.split('.')[0]}.forged` }),
      openStream('CA999', parameters),
    ];
    for (const attempt of attempts) expect(await (await attempt).closed).toBe(1008);
    expect(calls.length).toBe(before);
    expect(errors.filter((e) => e instanceof StreamRefusedError).length).toBeGreaterThanOrEqual(3);
  });

  it('lets a stream token expire', () => {
    const shortLived = new StreamTokens({ ttlMs: 5 });
    // Checked at given times, not after a sleep: a loaded machine can spend the 5 ms between two lines.
    const before = Date.now();
    const token = shortLived.issue('CA1');
    const after = Date.now();
    expect(shortLived.verify(token, 'CA1', before + 4)).toBe(true);
    expect(shortLived.verify(token, 'CA2', before + 4)).toBe(false);
    expect(shortLived.verify(token, 'CA1', after + 6)).toBe(false);
  });

  it('logs status callbacks and passes machine-detection results on', async () => {
    expect((await webhook('/twilio/status', { CallSid: 'CA100', CallStatus: 'completed', CallDuration: '12' })).status).toBe(204);
    expect(logs).toContain('twilio call CA100: status completed');
    expect((await webhook('/twilio/amd', { CallSid: 'CA100', AnsweredBy: 'machine_end_beep', MachineDetectionDuration: '4200' })).status).toBe(204);
    expect(answered).toEqual([{ callSid: 'CA100', answeredBy: 'machine_end_beep' }]);
  });
});

describe('call control through the Twilio REST API (a fake one, by its documented shapes)', () => {
  const control = () => new TwilioCallControl({ accountSid, authToken, apiBaseUrl: api.url });

  it('hangs up through the API only once the last words are echoed as played, then closes the stream', async () => {
    const callSid = `CA${'2'.repeat(32)}`;
    api.knownCalls.add(callSid);
    const { call, ws, received, closedAt } = await answer(callSid);
    runPhoneCall(call.transport, new Subject<AgentEvent>(), { control: control(), log: (line) => logs.push(line) });
    call.transport.play({ samples: new Int16Array(1600).fill(1000), sampleRate: 8000, timestampMs: 0 });
    expect(call.transport.pendingMs()).toBe(200);
    call.transport.hangup('agent ended the call');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(api.updates(callSid)).toEqual([]); // the goodbye is still playing
    expect(ws.readyState).toBe(WebSocket.OPEN);
    echo(ws, marks(received).at(-1)!);
    await expect.poll(() => closedAt(), { timeout: 5000 }).toBeGreaterThan(0);
    const [update] = api.updates(callSid);
    expect(update!.params).toEqual({ Status: 'completed' });
    expect(update!.atMs).toBeLessThanOrEqual(closedAt());
    expect(call.events.at(-1)).toEqual({ type: 'hangup', reason: 'agent ended the call' });
  });

  it('transfers instead of hanging up after transfer_call: to a named number, or to a SIP URI with an announcement', async () => {
    for (const [args, twiml] of [
      [{ to: 'front desk' }, '<Response><Dial>+14155550100</Dial></Response>'],
      [{ to: 'sip:desk@pbx.example.com', announce: 'Connecting you now.' }, '<Response><Say>Connecting you now.</Say><Dial><Sip>sip:desk@pbx.example.com</Sip></Dial></Response>'],
    ] as const) {
      const callSid = `CA${String(api.knownCalls.size + 300).padStart(32, '3')}`;
      api.knownCalls.add(callSid);
      const { call, closedAt } = await answer(callSid);
      const events = new Subject<AgentEvent>();
      const transfers = { targets: { 'front desk': '+14155550100', 'desk pbx': 'sip:desk@pbx.example.com' } };
      runPhoneCall(call.transport, events, { control: control(), transfers, log: (line) => logs.push(line) });
      events.next({ type: 'tool-call', reply: 1, speculative: false, kept: true, name: 'transfer_call', arguments: args });
      call.transport.hangup('transferred to a human agent');
      await expect.poll(() => closedAt()).toBeGreaterThan(0);
      const updates = api.updates(callSid);
      expect(updates).toHaveLength(1);
      expect(updates[0]!.params['Twiml']).toBe(`<?xml version="1.0" encoding="UTF-8"?>${twiml}`);
      expect(updates[0]!.atMs).toBeLessThanOrEqual(closedAt()); // the stream closes after the redirect, or the call would end
    }
  });

  it('hangs up, saying why in the log, when the transfer target is unknown', async () => {
    const callSid = `CA${'4'.repeat(32)}`;
    api.knownCalls.add(callSid);
    const { call, closedAt } = await answer(callSid);
    const events = new Subject<AgentEvent>();
    runPhoneCall(call.transport, events, { control: control(), log: (line) => logs.push(line) });
    events.next({ type: 'tool-call', reply: 1, speculative: false, kept: true, name: 'transfer_call', arguments: { to: 'the moon' } });
    expect(logs.at(-1)).toMatch(/transfer_call failed: no transfer target for "the moon"/);
    call.transport.hangup('done');
    await expect.poll(() => closedAt()).toBeGreaterThan(0);
    expect(api.updates(callSid).map((u) => u.params)).toEqual([{ Status: 'completed' }]);
  });

  it('refuses a number the operator did not configure, logging it with the call, unless any target is allowed', async () => {
    const transfers = { targets: { 'front desk': '+14155550100' } };
    for (const [allowAnyTarget, expected] of [
      [false, [{ Status: 'completed' }]],
      [true, [{ Twiml: '<?xml version="1.0" encoding="UTF-8"?><Response><Dial>+19005550123</Dial></Response>' }]],
    ] as const) {
      const callSid = `CA${String(api.knownCalls.size + 600).padStart(32, '6')}`;
      api.knownCalls.add(callSid);
      const { call, closedAt } = await answer(callSid);
      const events = new Subject<AgentEvent>();
      runPhoneCall(call.transport, events, { control: control(), transfers: { ...transfers, allowAnyTarget }, log: (line) => logs.push(line) });
      events.next({ type: 'tool-call', reply: 1, speculative: false, kept: true, name: 'transfer_call', arguments: { to: '+19005550123' } });
      if (!allowAnyTarget) expect(logs.at(-1)).toBe(`call ${callSid}: transfer_call failed: cannot transfer to +19005550123: transfers go only to: front desk (the operator allows other numbers with --allow-any-transfer-target)`);
      call.transport.hangup('done');
      await expect.poll(() => closedAt()).toBeGreaterThan(0);
      expect(api.updates(callSid).map((u) => u.params)).toEqual(expected);
    }
  });

  it('does not transfer when the tool already told the dialogue it cannot (a tool-call with an error)', async () => {
    const callSid = `CA${'7'.repeat(32)}`;
    api.knownCalls.add(callSid);
    const { call, closedAt } = await answer(callSid);
    const events = new Subject<AgentEvent>();
    runPhoneCall(call.transport, events, { control: control(), transfers: { targets: { 'front desk': '+14155550100' } }, log: (line) => logs.push(line) });
    events.next({ type: 'tool-call', reply: 1, speculative: false, kept: true, name: 'transfer_call', arguments: { to: 'front desk' }, error: 'refused by the tool' });
    call.transport.hangup('done');
    await expect.poll(() => closedAt()).toBeGreaterThan(0);
    expect(api.updates(callSid).map((u) => u.params)).toEqual([{ Status: 'completed' }]);
  });

  it('sends DTMF to the other side as in-band keypad tones (send_dtmf)', async () => {
    const callSid = `CA${'5'.repeat(32)}`;
    const { call, received } = await answer(callSid);
    const events = new Subject<AgentEvent>();
    runPhoneCall(call.transport, events, { log: (line) => logs.push(line) });
    events.next({ type: 'tool-call', reply: 1, speculative: false, kept: true, name: 'send_dtmf', arguments: { digits: '1#' } });
    await expect.poll(() => marks(received).length).toBeGreaterThan(0);
    const audio = decodeMuLaw(new Uint8Array(Buffer.concat(received.filter((m) => m.event === 'media').map((m) => Buffer.from(m.media!.payload, 'base64')))));
    expect(audio.length).toBe(2 * 8 * 180); // two 100 ms tones, each followed by 80 ms of silence
    const one = audio.subarray(0, 800);
    const hash = audio.subarray(1440, 2240);
    expect(toneShare(one, 697, 8000)).toBeGreaterThan(0.3);
    expect(toneShare(one, 1209, 8000)).toBeGreaterThan(0.3);
    expect(toneShare(one, 941, 8000)).toBeLessThan(0.01);
    expect(toneShare(hash, 941, 8000)).toBeGreaterThan(0.3);
    expect(toneShare(hash, 1477, 8000)).toBeGreaterThan(0.3);
    events.next({ type: 'tool-call', reply: 1, speculative: false, kept: true, name: 'send_dtmf', arguments: { digits: 'hello' } });
    expect(logs.at(-1)).toMatch(/send_dtmf failed: cannot send "hello" as DTMF/);
  });

  it('places an outbound call that streams to the agent, with asynchronous machine detection', async () => {
    const { callId, traceparent } = await placeCall(control(), { to: '+14155550123', from: '+14155550199', publicUrl, tokens, agent: 'support', mode: 'balanced' });
    const create = api.requests.find((r) => r.path.endsWith('/Calls.json'))!;
    expect(create.params).toMatchObject({
      To: '+14155550123',
      From: '+14155550199',
      MachineDetection: 'Enable',
      AsyncAmd: 'true',
      AsyncAmdStatusCallback: 'https://shoal.example.test/twilio/amd',
      StatusCallback: 'https://shoal.example.test/twilio/status',
    });
    const stream = streamOf(create.params['Twiml']!);
    expect(stream.url).toBe('wss://shoal.example.test/telephony');
    expect(stream.parameters).toMatchObject({ traceparent, agent: 'support', mode: 'balanced' });
    const before = calls.length;
    await openStream(callId, stream.parameters);
    await expect.poll(() => calls.length).toBe(before + 1);
    expect(calls.at(-1)!.transport.callSid).toBe(callId);
  });

  it('reports what the API refused as a CallControlError with its status', async () => {
    const hangup = control().hangup(`CA${'9'.repeat(32)}`);
    await expect(hangup).rejects.toBeInstanceOf(CallControlError);
    await expect(hangup).rejects.toMatchObject({ action: 'hangup', status: 404 });
    const wrongToken = new TwilioCallControl({ accountSid, authToken: 'wrong', apiBaseUrl: api.url });
    await expect(wrongToken.transfer(`CA${'2'.repeat(32)}`, { to: '+14155550100' })).rejects.toMatchObject({ status: 401 });
  });
});
