import { readFileSync } from 'node:fs';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { CallSession, TurnReport } from '../../src/agent/index.js';
import { encodeMuLaw, parseWav, resample } from '../../src/audio/index.js';
import { startAgentApp, type AgentApp } from '../../src/cli/run-agent.js';
import { createLogger } from '../../src/logging/index.js';
import { FakeTwilioApi } from '../support/twilio-fake-api.js';

// A phone bot on Twilio end to end, with nothing outside Shoal: the number's voice webhook answers with TwiML,
// the media stream comes back with its token, the support agent talks with a real caller (recorded human speech,
// resampled to the 8 kHz telephone band), and when the dialogue transfers, Shoal redirects the call through
// Twilio's REST API (a fake one here, by its documented shapes).

const accountSid = `AC${'7'.repeat(32)}`;
const authToken = 'e2e-auth-token-0123456789abcdef';
const publicUrl = 'https://bot.example.test';
const callSid = `CA${'8'.repeat(32)}`;
const api = new FakeTwilioApi(accountSid, authToken);
let app: AgentApp;
const logs: string[] = [];
const sessions: { session: CallSession; turns: TurnReport[] }[] = [];

/** The caller's turns: runs of speech in the recording, split at pauses of a second or more. */
function speechTurns(samples: Int16Array, rate: number): Int16Array[] {
  const frame = rate / 50;
  const loud: boolean[] = [];
  for (let at = 0; at + frame <= samples.length; at += frame) {
    let energy = 0;
    for (let i = at; i < at + frame; i++) energy += samples[i]! * samples[i]!;
    loud.push(Math.sqrt(energy / frame) > 300);
  }
  const turns: Int16Array[] = [];
  let start = -1;
  let quiet = 0;
  loud.forEach((isLoud, i) => {
    if (isLoud) {
      if (start < 0) start = i;
      quiet = 0;
    } else if (start >= 0 && ++quiet >= 50) {
      turns.push(samples.subarray(Math.max(0, start - 10) * frame, (i - quiet + 15) * frame));
      start = -1;
    }
  });
  if (start >= 0) turns.push(samples.subarray(Math.max(0, start - 10) * frame));
  return turns;
}

// Slow (a whole call in real time with the embedded engines, about a minute on an idle machine): run with
//   SHOAL_PHONE_E2E=1 npx vitest run test/transports/telephony-twilio-call.test.ts
describe.skipIf(!process.env['SHOAL_PHONE_E2E'])('a Twilio phone call answered, talked, transferred by Shoal alone', () => {
  beforeAll(async () => {
    await api.start();
    api.knownCalls.add(callSid);
    Object.assign(process.env, { TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken, TWILIO_API_BASE_URL: api.url });
    app = await startAgentApp(
      { agent: 'support', host: '127.0.0.1', port: 0, mode: 'balanced', publicUrl, transfer: ['human agent=+14155550100'] },
      {
        logger: createLogger({ level: 'info', pretty: false, destination: { write: (line: string) => void logs.push(String(JSON.parse(line).msg)) } }),
        onCall: ({ session }) => {
          const entry = { session, turns: [] as TurnReport[] };
          sessions.push(entry);
          session.events$.subscribe((event) => event.type === 'turn-metrics' && entry.turns.push(event.report));
        },
      },
    );
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await api.close();
    for (const name of ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_API_BASE_URL']) delete process.env[name];
  });

  it('answers the webhook, admits the stream by its token, takes the caller through the support dialogue and transfers through the REST API', async () => {
    const params = { AccountSid: accountSid, CallSid: callSid, From: '+14155550123', To: '+14155550199', CallStatus: 'ringing', Direction: 'inbound' };
    const answer = await fetch(`${app.url}twilio/voice`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(authToken, `${publicUrl}/twilio/voice`, params) },
      body: new URLSearchParams(params).toString(),
    });
    expect(answer.status).toBe(200);
    const twiml = await answer.text();
    expect(twiml).toContain('<Connect><Stream url="wss://bot.example.test/telephony"');
    const parameters = Object.fromEntries([...twiml.matchAll(/<Parameter name="([^"]+)" value="([^"]+)"\/>/g)].map((m) => [m[1]!, m[2]!]));

    const ws = new WebSocket(`${app.url.replace('http', 'ws')}telephony`);
    let lastAgentAudioAt = 0;
    let agentSpoke = false;
    let closedAt = 0;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { event: string; mark?: { name: string } };
      if (message.event === 'media') {
        lastAgentAudioAt = Date.now();
        agentSpoke = true;
      }
      // The carrier plays what it gets at once (the agent paces its audio) and echoes each mark.
      if (message.event === 'mark') ws.send(JSON.stringify({ event: 'mark', streamSid: 'MZ1', mark: message.mark }));
    });
    const closed = new Promise<void>((resolve) => ws.on('close', () => resolve(void (closedAt = Date.now()))));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
    ws.send(JSON.stringify({ event: 'start', streamSid: 'MZ1', start: { streamSid: 'MZ1', callSid, accountSid, tracks: ['inbound'], customParameters: parameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } }));

    const wav = parseWav(readFileSync(new URL('../fixtures/calls/support-16k.wav', import.meta.url)));
    const caller = await resample(wav.samples, wav.sampleRate, 8000);
    const turns = speechTurns(caller, 8000);
    expect(turns.length).toBe(3); // "what is my account balance", "please transfer me to a human agent", "no thank you"
    const silence = new Int16Array(160);
    let clock = Date.now();
    const sendFrame = async (samples: Int16Array) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      ws.send(JSON.stringify({ event: 'media', streamSid: 'MZ1', media: { track: 'inbound', payload: Buffer.from(encodeMuLaw(samples)).toString('base64') } }));
      clock += 20;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, clock - Date.now())));
    };
    const t0 = Date.now();
    for (const turn of turns) {
      if (process.env['SHOAL_DEBUG_E2E']) console.log('turn wait start', Date.now() - t0, sessions.at(-1)?.turns.map((t) => `${t.user_text} -> ${t.agent_text}`));
      // The caller waits for the agent to finish speaking (silence on the line meanwhile), then says the next line.
      const waitStart = Date.now();
      while (!(agentSpoke && Date.now() - lastAgentAudioAt > 800) && Date.now() - waitStart < 60_000) await sendFrame(silence);
      agentSpoke = false;
      for (let at = 0; at < turn.length; at += 160) await sendFrame(turn.subarray(at, at + 160));
    }
    while (ws.readyState === WebSocket.OPEN) await sendFrame(silence);
    await closed;

    if (process.env['SHOAL_DEBUG_E2E']) console.log('done', Date.now() - t0, logs);
    const call = sessions.at(-1)!;
    const said = call.turns.map((t) => `${t.user_text} -> ${t.agent_text}`);
    expect(closedAt, said.join('\n')).toBeGreaterThan(0);
    expect(call.session.traceId).toBe(parameters['traceparent']!.split('-')[1]);
    const updates = api.updates(callSid);
    expect(updates.map((u) => u.params), said.join('\n')).toEqual([{ Twiml: '<?xml version="1.0" encoding="UTF-8"?><Response><Dial>+14155550100</Dial></Response>' }]);
    expect(updates[0]!.atMs).toBeLessThanOrEqual(closedAt);
    expect(said.at(-1)).toMatch(/Goodbye[.!]$/); // the dialogue's own goodbye, or the silence timeout's if a line was misheard
    expect(logs).toContain(`call ${callSid}: transferred to +14155550100`);
  }, 240_000);
});
