import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnReport } from '../../src/agent/index.js';
import { startAgentApp, type AgentApp } from '../../src/cli/run-agent.js';
import { MediaStreamCaller } from '../../src/transports/index.js';
import { CartesiaDouble } from '../support/cartesia-double.js';
import { DeepgramDouble } from '../support/deepgram-double.js';
import { FakeOpenAiServer, says } from '../support/fake-openai-server.js';
import { phoneTurn } from '../support/provider-audio.js';

// A phone call over Twilio's media stream to an agent that hears through Deepgram and speaks through Cartesia
// (their protocol doubles), with an LLM double for the dialogue.
describe('a Twilio phone call with --stt deepgram --tts cartesia', () => {
  const saved = { DEEPGRAM_API_KEY: process.env['DEEPGRAM_API_KEY'], CARTESIA_API_KEY: process.env['CARTESIA_API_KEY'] };
  let stt: DeepgramDouble;
  let tts: CartesiaDouble;
  const llm = new FakeOpenAiServer();
  let app: AgentApp;
  const turns: TurnReport[] = [];

  beforeAll(async () => {
    stt = await DeepgramDouble.start({ keys: ['dg-key'], script: ['I would like to book a table.'] });
    tts = await CartesiaDouble.start({ keys: ['cartesia-key'] });
    await llm.start();
    llm.fallback = says('Of course, for how many people?');
    Object.assign(process.env, { DEEPGRAM_API_KEY: 'dg-key', CARTESIA_API_KEY: 'cartesia-key' });
    app = await startAgentApp(
      {
        agent: 'receptionist',
        host: '127.0.0.1',
        port: 0,
        mode: 'balanced',
        dataDir: mkdtempSync(join(tmpdir(), 'shoal-provider-phone-')),
        callRecords: false,
        stt: 'deepgram',
        sttUrl: stt.url,
        tts: 'cartesia',
        ttsUrl: tts.url,
        llmUrl: llm.baseUrl,
        greeting: '',
      },
      { onCall: ({ session }) => session.events$.subscribe((event) => event.type === 'turn-metrics' && turns.push(event.report)) },
    );
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([stt?.close(), tts?.close(), llm.close()]);
    // Key by key: a plain object put in place of process.env would no longer reach the environment (os.tmpdir()
    // reads TMPDIR from it) for the files this worker runs next.
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('hears the caller through Deepgram, answers through Cartesia, and the audio leaves as the line\'s mu-law untouched', async () => {
    const caller = await MediaStreamCaller.connect(`${app.url.replace(/^http/, 'ws')}telephony`);
    await caller.play(phoneTurn());
    await expect.poll(() => turns.filter((turn) => turn.agentText).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    await expect.poll(() => tts.seen[0]?.sent.some((message) => message['type'] === 'done'), { timeout: 5000 }).toBe(true);
    await caller.play(new Uint8Array(1600).fill(0xff));
    await caller.hangUp();

    const turn = turns.find((report) => report.agentText)!;
    expect(turn.userText).toBe('I would like to book a table.');
    expect(turn.agentText).toBe('Of course, for how many people?');
    expect(turn.metrics).toMatchObject({ sttProvider: 'deepgram', ttsProvider: 'cartesia' });
    // The dialogue heard what Deepgram said.
    expect(JSON.stringify(llm.seen[0]!.body.messages)).toContain('I would like to book a table.');

    // Deepgram got the line's own bytes: mu-law at 8 kHz, not decoded or resampled.
    const listen = stt.seen[0]!;
    expect(listen.query.get('encoding')).toBe('mulaw');
    expect(listen.query.get('sample_rate')).toBe('8000');
    expect(listen.controls).toContain('Finalize');

    // Cartesia was asked for the line's encoding and rate, and the caller heard exactly the bytes it sent.
    const request = tts.seen[0]!.messages.find((message) => message['transcript'])!;
    expect(request['output_format']).toEqual({ container: 'raw', encoding: 'pcm_mulaw', sample_rate: 8000 });
    const synthesised = Buffer.concat(tts.seen[0]!.sent.filter((message) => message['type'] === 'chunk').map((message) => Buffer.from(String(message['data']), 'base64')));
    expect(synthesised.length).toBeGreaterThan(8000 * 0.5);
    expect(Buffer.concat(caller.heard.payloads).includes(synthesised)).toBe(true);
  }, 30_000);
});
