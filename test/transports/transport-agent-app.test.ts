import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { CallSession, TurnReport } from '../../src/agent/index.js';
import { decodeMuLaw, encodeMuLaw, parseWav, rms } from '../../src/audio/index.js';
import { MissingApiKeyError, startAgentApp, type AgentApp } from '../../src/cli/run-agent.js';
import { UnknownAgentError } from '../../agents/index.js';
import { wordErrors } from '../support/engines-fixtures.js';
import { VirtualPhone } from '../support/virtual-phone.js';

const options = { agent: 'receptionist', host: '127.0.0.1', port: 0, mode: 'balanced' as const };

describe('shoal agent: the app behind the demo page', () => {
  let app: AgentApp;
  const sessions: { session: CallSession; turns: TurnReport[] }[] = [];
  const phone = new VirtualPhone();

  beforeAll(async () => {
    app = await startAgentApp(options, {
      clock: phone.clock,
      onCall: (call) => {
        phone.onCall(call);
        const { session } = call;
        const entry = { session, turns: [] as TurnReport[] };
        sessions.push(entry);
        session.events$.subscribe((event) => {
          if (event.type === 'turn-metrics') entry.turns.push(event.report);
        });
      },
    });
  }, 60_000);
  afterAll(async () => app?.close());

  it('lists the ready-made agents for the page, the chosen one first', async () => {
    const listing = (await (await fetch(`${app.url}api/agents`)).json()) as { default: string; agents: { name: string }[] };
    expect(listing.default).toBe('receptionist');
    expect(listing.agents[0]!.name).toBe('receptionist');
    expect(listing.agents.map((a) => a.name)).toContain('support');
  });

  it('refuses a browser call for an agent that does not exist, naming the ones that do', async () => {
    const ws = new WebSocket(`${app.url.replace('http', 'ws')}ws`);
    const messages: { type: string; code?: string; message?: string }[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'hello', agent: 'astronaut' }));
    const code = await new Promise<number>((resolve) => ws.once('close', resolve));
    expect(code).toBe(1011);
    expect(messages[0]).toMatchObject({ type: 'error', code: 'unknown_agent' });
    expect(messages[0]!.message).toContain('receptionist');
    expect(app.server.browser.activeCalls()).toBe(0);
  });

  it('answers a phone call on the telephony stream: mu-law in, the agent speaks mu-law back, one trace', async () => {
    const traceparent = '00-7d3f0c2a9b8e4f1a6c5d4e3f2a1b0c9d-1234567890abcdef-01';
    const phoneCall = await phone.call(app.url, { traceparent });
    // The whole call: booking request, "yes that sounds good", "goodbye".
    await phoneCall.play(encodeMuLaw(parseWav(readFileSync(new URL('../fixtures/calls/booking-8k-ulaw.wav', import.meta.url))).samples));
    expect(await phoneCall.waitFor(() => sessions.at(-1)?.turns.filter((t) => t.userText).length === 3, 15_000)).toBe(true);
    const call = sessions.at(-1)!;
    expect(call.session.traceId).toBe(traceparent.split('-')[1]);
    const answered = call.turns.filter((t) => t.userText);
    // What the caller said, heard through mu-law at 8 kHz on the call's clock, from the telephone cepstral mean and
    // with the telephone band's model: "hello hi would like to but the table for two people tonight" / "yes that
    // sounds good" / "the night", 5 errors in 17 words (docs/measurements.md). The synthetic "goodbye" is heard
    // "the night" (the grammar's "goodbye" loses 7.8 per frame; docs/listening.md, Known limits); the scripted
    // replies of this call, goodbye included, are checked through `shoal talk` (dialogue-fixture-calls.test.ts).
    // Bound: 1.5 x 7.
    expect(answered).toHaveLength(3);
    const heard = answered.map((turn) => turn.userText).join(' ');
    expect(wordErrors('hello i would like to book a table for two people tonight yes that sounds good goodbye', heard).errors).toBeLessThanOrEqual(10);
    expect(answered[1]!.userText).toMatch(/that sounds good/);
    expect(answered[2]!.agentText.length).toBeGreaterThan(0);
    for (const turn of answered) expect(turn.metrics.voiceToVoiceMs).toBeGreaterThan(0);
    const agentAudio = decodeMuLaw(new Uint8Array(Buffer.concat(phoneCall.heard.payloads)));
    expect(agentAudio.length / 8000).toBeGreaterThan(1);
    expect(rms(agentAudio)).toBeGreaterThan(0.01);
    await phoneCall.hangUp();
    await expect.poll(() => app.server.telephony.activeCalls(), { timeout: 5000 }).toBe(0);
  }, 60_000);
});

describe('shoal agent: start-up checks', () => {
  it('fails at once on an unknown --agent, naming the agents that exist', async () => {
    const error = await startAgentApp({ ...options, agent: 'astronaut' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownAgentError);
    expect((error as Error).message).toContain('receptionist');
  });

  it('needs a key with --service-url', async () => {
    const saved = { fish: process.env['FISH_API_KEY'], shoal: process.env['SHOAL_API_KEY'] };
    delete process.env['FISH_API_KEY'];
    delete process.env['SHOAL_API_KEY'];
    try {
      await expect(startAgentApp({ ...options, serviceUrl: 'http://127.0.0.1:9' })).rejects.toBeInstanceOf(MissingApiKeyError);
    } finally {
      if (saved.fish !== undefined) process.env['FISH_API_KEY'] = saved.fish;
      if (saved.shoal !== undefined) process.env['SHOAL_API_KEY'] = saved.shoal;
    }
  });

  it('hands keypad digits from the telephony stream to the dialogue as the caller turn', async () => {
    const turns: TurnReport[] = [];
    const parcel = await startAgentApp({ ...options, port: 0, script: 'examples/scripts/parcel-line.yaml' }, {
      onCall: ({ session }) => session.events$.subscribe((event) => event.type === 'turn-metrics' && turns.push(event.report)),
    });
    try {
      const ws = new WebSocket(`${parcel.url.replace('http', 'ws')}telephony`);
      await new Promise((resolve) => ws.once('open', resolve));
      ws.send(JSON.stringify({ event: 'start', streamSid: 'MZ7', start: { streamSid: 'MZ7', callSid: 'CA7', mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } }));
      await expect.poll(() => parcel.server.telephony.activeCalls(), { timeout: 5000 }).toBe(1);
      for (const digit of ['4', '1', '9', '2', '#']) {
        ws.send(JSON.stringify({ event: 'dtmf', streamSid: 'MZ7', sequenceNumber: '9', dtmf: { track: 'inbound_track', digit } }));
      }
      await expect.poll(() => turns.find((t) => t.userText)?.agentText, { timeout: 15_000 }).toMatch(/I heard .*4.*1.*9.*2.*right/i);
      expect(turns.find((t) => t.userText)!.userText).toBe('4192');
      ws.close();
    } finally {
      await parcel.close();
    }
  }, 60_000);

  it('serves a --script file as the only agent', async () => {
    const scripted = await startAgentApp({ ...options, port: 0, script: 'examples/scripts/booking.yaml' });
    try {
      const listing = (await (await fetch(`${scripted.url}api/agents`)).json()) as { default: string; agents: { name: string; description: string }[] };
      expect(listing.default).toBe('bella-booking');
      expect(listing.agents).toEqual([{ name: 'bella-booking', description: "Books tables at Bella's Trattoria." }]);
    } finally {
      await scripted.close();
    }
  }, 60_000);
});
