/**
 * `shoal agent --service-url` against a `shoal serve` with the live recognition socket: each call's recognition
 * streams over one `/v1/listen` socket (no `/v1/asr` request), and against a service without it (404), the agent
 * says so at start-up and sends each utterance to `/v1/asr`. A counting proxy in front of the service sees which.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnReport } from '../../src/agent/index.js';
import { encodeMuLaw, parseWav } from '../../src/audio/index.js';
import { startAgentApp, type AgentApp } from '../../src/cli/run-agent.js';
import { probeListen } from '../../src/cli/service-recognition.js';
import { startEmbeddedService, type EmbeddedService } from '../../src/service/index.js';
import { MediaStreamCaller } from '../../src/transports/index.js';
import { startCountingProxy, type CountingProxy } from '../support/counting-proxy.js';
import { VirtualPhone } from '../support/virtual-phone.js';

const script = fileURLToPath(new URL('../../examples/scripts/parcel-line.yaml', import.meta.url));
// The parcel line's first answer: 6 s of line noise, "four one nine two" (a real recording), then quiet.
const firstAnswer = encodeMuLaw(parseWav(readFileSync(new URL('../fixtures/human-calls/parcel-8k-ulaw.wav', import.meta.url))).samples).subarray(0, 8000 * 11);

let service: EmbeddedService;
beforeAll(async () => {
  service = await startEmbeddedService();
}, 60_000);
afterAll(async () => {
  await service?.close();
});

/**
 * An agent on the service behind a counting proxy; `refuseListen`: the proxy answers 404 to `/v1/listen`, and the
 * call runs on a virtual clock (each utterance's `/v1/asr` request is work the call settles on). Over the live
 * socket the call stays on the wall clock: the service decodes the audio as it arrives, and audio sent faster than
 * real time leaves it a backlog that the `Finalize` deadline (10 s of wall clock) does not wait for.
 */
async function agentBehind(refuseListen: boolean) {
  const proxy = await startCountingProxy(service.url, refuseListen ? { refuseUpgrades: ['/v1/listen'] } : {});
  const turns: TurnReport[] = [];
  const phone = refuseListen ? new VirtualPhone() : undefined;
  const app = await startAgentApp(
    { agent: 'receptionist', script, host: '127.0.0.1', port: 0, mode: 'balanced', serviceUrl: proxy.url, apiKey: service.apiKey },
    {
      ...(phone ? { clock: phone.clock } : {}),
      onCall: (call) => {
        phone?.onCall(call);
        call.session.events$.subscribe((event) => event.type === 'turn-metrics' && turns.push(event.report));
      },
    },
  );
  const answered = () => turns.some((turn) => turn.userText);
  const call = async () => {
    if (phone) {
      const caller = await phone.call(app.url);
      await caller.play(firstAnswer);
      expect(await caller.waitFor(answered, 30_000)).toBe(true);
      await caller.hangUp();
    } else {
      const caller = await MediaStreamCaller.connect(`${app.url.replace(/^http/, 'ws')}telephony`);
      await caller.play(firstAnswer);
      await expect.poll(answered, { timeout: 30_000 }).toBe(true);
      await caller.hangUp();
    }
    return turns.find((turn) => turn.userText)!;
  };
  return { proxy, app, call, close: async () => (await app.close(), await proxy.close()) };
}

describe('the agent recognises over the service\'s live socket', () => {
  let agent: Awaited<ReturnType<typeof agentBehind>>;
  beforeAll(async () => {
    agent = await agentBehind(false);
  }, 60_000);
  afterAll(async () => agent?.close());

  it('says so at start-up, streams the call over one /v1/listen socket and sends nothing to /v1/asr', async () => {
    expect(agent.app.speechLines).toEqual([expect.stringContaining(`recognition by the speech service at ${agent.proxy.url} (/v1/listen, one live socket per call)`)]);
    // The start-up probe opened the socket once.
    expect(agent.proxy.count('GET /v1/listen (upgrade)')).toBe(1);
    const turn = await agent.call();
    // The call's digits expectation goes as `hints`: recognised as digits, "four" cannot come out as "for".
    expect(turn.userText).toBe('four one nine two');
    expect(turn.agentText).toMatch(/4192/);
    // The call's socket (the adapter opens another only after one failed or missed a Finalize deadline).
    expect(agent.proxy.count('GET /v1/listen (upgrade)')).toBeGreaterThanOrEqual(2);
    expect(agent.proxy.count('POST /v1/asr')).toBe(0);
    // Synthesis still goes over the service's live TTS socket.
    expect(agent.proxy.count('GET /v1/tts/live (upgrade)')).toBeGreaterThanOrEqual(1);
  }, 60_000);
});

describe('a service without /v1/listen', () => {
  it('keeps /v1/asr per utterance, and says why in one start-up line', async () => {
    const agent = await agentBehind(true);
    try {
      expect(agent.app.speechLines).toEqual([
        expect.stringContaining(`recognition by the speech service at ${agent.proxy.url} (/v1/asr)`),
        `Recognition: the speech service at ${agent.proxy.url} has no live recognition socket (/v1/listen: HTTP 404); each utterance is sent to /v1/asr`,
      ]);
      const turn = await agent.call();
      expect(turn.userText).toMatch(/four one nine two/);
      expect(agent.proxy.count('POST /v1/asr')).toBeGreaterThanOrEqual(1);
      expect(agent.proxy.count('GET /v1/listen (upgrade)')).toBe(1);
    } finally {
      await agent.close();
    }
  }, 100_000);

  it('the probe tells a dropped upgrade and a refused key from an open socket', async () => {
    expect(await probeListen({ url: service.url, apiKey: service.apiKey })).toEqual({ open: true });
    expect(await probeListen({ url: service.url, apiKey: 'wrong' })).toEqual({ open: false, answer: 'HTTP 401' });
    expect(await probeListen({ url: 'http://127.0.0.1:9', apiKey: service.apiKey })).toEqual({ open: false, answer: 'ECONNREFUSED' });
  });
});
