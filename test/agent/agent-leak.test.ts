import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createDialogue } from '../../agents/index.js';
import { createEmbeddedAgentStack, VoiceAgent } from '../../src/agent/index.js';
import { encodeMuLaw, parseWav } from '../../src/audio/index.js';
import { startAgentApp } from '../../src/cli/run-agent.js';
import { EnginePool } from '../../src/engines/pool/index.js';
import { decodeCall, runFileCall } from '../../src/transports/file/file-call.js';
import { MediaStreamCaller } from '../../src/transports/index.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, ToneTts } from '../support/agent-doubles.js';
import { startHostedDouble } from '../support/hosted-service-double.js';

const handles = () => process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap' && kind !== 'Timeout').length;
const settleLoop = () => new Promise((resolve) => setTimeout(resolve, 50));

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Full collections in later turns of the loop: a WeakRef's target is kept through the turn it was made or read in. */
async function collectGarbage(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await settleLoop();
    gc();
  }
}

describe('resources across many calls', () => {
  it('200 sequential calls release every detector, timer and subscription; memory stays flat', async () => {
    const vads: EnergyVad[] = [];
    const agent = new VoiceAgent({
      dialogue: new FixedDialogue((input) => `you said ${input.userText}.`, 'Hello.'),
      stt: new AmplitudeStt(),
      tts: new ToneTts(),
      vad: () => {
        const vad = new EnergyVad();
        vads.push(vad);
        return vad;
      },
      mode: 'low-latency',
    });
    const caller = callerTrack(3000, [{ atMs: 400, ms: 500, amplitude: 5000 }]);
    const timersBefore = process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const handlesBefore = handles();
    let rssAt20 = 0;
    for (let i = 0; i < 200; i++) {
      const { summary } = await runFileCall(agent, caller, { fast: true });
      expect(summary.turns.map((t) => t.agentText)).toEqual(['Hello.', 'you said hello there.']);
      if (i === 19) rssAt20 = process.memoryUsage().rss;
    }
    await settleLoop();
    const rssGrowthMb = (process.memoryUsage().rss - rssAt20) / 2 ** 20;
    expect(vads).toHaveLength(200);
    expect(vads.every((vad) => vad.released)).toBe(true);
    expect(handles()).toBeLessThanOrEqual(handlesBefore);
    expect(process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length).toBeLessThanOrEqual(timersBefore);
    expect(rssGrowthMb).toBeLessThan(40);
  }, 120_000);

  it('calls on the embedded stack close their sockets and engine state at hangup', async () => {
    const stack = await createEmbeddedAgentStack({ mode: 'low-latency' });
    try {
      const full = await decodeCall(readFileSync(new URL('../fixtures/calls/booking-16k.wav', import.meta.url)));
      // The first caller turn only: about 5 s of audio, one reply.
      const caller = { samples: full.samples.slice(0, 16000 * 5), sampleRate: full.sampleRate };
      await runFileCall(stack.agentFor(createDialogue('echo')), caller, { fast: true });
      await settleLoop();
      const before = handles();
      const rssBefore = process.memoryUsage().rss;
      // Three calls: a socket or engine state kept per call would leave three handles more than before.
      for (let i = 0; i < 3; i++) {
        const { summary } = await runFileCall(stack.agentFor(createDialogue('echo')), caller, { fast: true });
        expect(summary.turns.some((t) => t.userText.includes('table'))).toBe(true);
      }
      await settleLoop();
      expect(handles()).toBeLessThanOrEqual(before + 1);
      expect((process.memoryUsage().rss - rssBefore) / 2 ** 20).toBeLessThan(30);
    } finally {
      await stack.close();
    }
  }, 300_000);

  it('phone calls through shoal agent with hosted engines leave no call, socket, VAD pin, transport or session behind', async () => {
    const service = await startHostedDouble({ text: 'four one nine two' });
    const calls: Array<{ transport: WeakRef<object>; session: WeakRef<object> }> = [];
    const app = await startAgentApp(
      { agent: 'receptionist', script: fileURLToPath(new URL('../../examples/scripts/parcel-line.yaml', import.meta.url)), host: '127.0.0.1', port: 0, mode: 'low-latency', serviceUrl: service.url, apiKey: 'leak-key' },
      { onCall: ({ transport, session }) => calls.push({ transport: new WeakRef(transport), session: new WeakRef(session) }) },
    );
    try {
      // A real caller's line: the greeting plays and the line noise goes through the VAD, then the caller hangs up.
      const lineNoise = encodeMuLaw(parseWav(readFileSync(new URL('../fixtures/human-calls/parcel-8k-ulaw.wav', import.meta.url))).samples).subarray(0, 8000 * 1.5);
      const telephony = `${app.url.replace(/^http/, 'ws')}telephony`;
      for (let round = 0; round < 2; round++) {
        await Promise.all(
          Array.from({ length: 3 }, async () => {
            const caller = await MediaStreamCaller.connect(telephony);
            await caller.play(lineNoise);
            await caller.hangUp();
            expect(caller.heard.bytes).toBeGreaterThan(0);
          }),
        );
      }
      expect(calls).toHaveLength(6);
      // A call leaves the registry when its socket has closed, which can be a moment after its session ended.
      const left = () => ({
        admitted: app.admission.active,
        calls: app.server.telephony.activeCalls(),
        sockets: app.server.telephony.openSockets(),
        vadPins: [...EnginePool.all].filter((pool) => pool.options.name === 'silero-vad').reduce((sum, pool) => sum + pool.stats.pinned, 0),
        ttsSockets: service.openLiveSockets(),
      });
      await expect.poll(left, { timeout: 5000 }).toEqual({ admitted: 0, calls: 0, sockets: 0, vadPins: 0, ttsSockets: 0 });
      // Work in flight at hangup (a recognition request, a flush) may hold a call for a moment; nothing may for longer.
      const kept = async () => {
        await collectGarbage();
        return { transports: calls.filter((call) => call.transport.deref() !== undefined).length, sessions: calls.filter((call) => call.session.deref() !== undefined).length };
      };
      await expect.poll(kept, { timeout: 2000, interval: 0 }).toEqual({ transports: 0, sessions: 0 });
    } finally {
      await app.close();
      await service.close();
    }
  }, 60_000);
});
