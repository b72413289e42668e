import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDialogue } from '../agents/index.js';
import { createEmbeddedAgentStack, VoiceAgent } from '../src/agent/index.js';
import { decodeCall, runFileCall } from '../src/transports/file/file-call.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, ToneTts } from './agent-doubles.js';

const handles = () => process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap' && kind !== 'Timeout').length;
const settleLoop = () => new Promise((resolve) => setTimeout(resolve, 50));

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
      const full = await decodeCall(readFileSync(new URL('./fixtures/calls/booking-16k.wav', import.meta.url)));
      // The first caller turn only: about 5 s of audio, one reply.
      const caller = { samples: full.samples.slice(0, 16000 * 5), sampleRate: full.sampleRate };
      await runFileCall(stack.agentFor(createDialogue('echo')), caller, { fast: true });
      await settleLoop();
      const before = handles();
      const rssBefore = process.memoryUsage().rss;
      for (let i = 0; i < 8; i++) {
        const { summary } = await runFileCall(stack.agentFor(createDialogue('echo')), caller, { fast: true });
        expect(summary.turns.some((t) => t.userText.includes('table'))).toBe(true);
      }
      await settleLoop();
      expect(handles()).toBeLessThanOrEqual(before + 1);
      expect((process.memoryUsage().rss - rssBefore) / 2 ** 20).toBeLessThan(80);
    } finally {
      await stack.close();
    }
  }, 300_000);
});
