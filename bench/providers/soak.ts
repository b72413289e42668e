/**
 * Many sequential phone calls to one `shoal agent` on the doubles, each with a speech turn (the caller says
 * "Goodbye": recognised by the Deepgram double, answered by the LLM double, spoken by the synthesis double):
 * the agent process's RSS after the first calls and at the end, each read after a second of quiet.
 */
import { cpuMs, phoneCall, shortTurn, startAgent, startDoubles } from './phone.js';

export async function soak(o: { tts: 'cartesia' | 'elevenlabs'; calls: number; baselineAfter: number }) {
  const doubles = await startDoubles({ tts: o.tts, llmFirstTokenMs: 0, interims: true, msPerChar: 5 });
  const agent = await startAgent(doubles, o.tts, 'low-latency', 5);
  const telephony = `${agent.url.replace(/^http/, 'ws')}telephony`;
  const settledRss = async () => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return agent.rssMb()!;
  };
  let answered = 0;
  let failed = 0;
  let baseline = 0;
  const started = performance.now();
  try {
    for (let n = 0; n < o.calls; n++) {
      if (n === o.baselineAfter) baseline = await settledRss();
      const outcome = await phoneCall(telephony, shortTurn, 1).catch(() => undefined);
      if (!outcome) failed++;
      else if (outcome.replies.every((reply) => reply !== null)) answered++;
    }
    const end = await settledRss();
    return {
      stt: 'deepgram',
      tts: o.tts,
      calls: o.calls,
      calls_with_turn_answered: answered,
      failed,
      recognised_sockets: doubles.stt.seen.length,
      llm_requests: doubles.llm.seen.length,
      minutes: Math.round((performance.now() - started) / 6000) / 10,
      rss_after_mb: { [o.baselineAfter]: baseline, [o.calls]: end },
      rss_growth_mb: Math.round((end - baseline) * 10) / 10,
      agent_cpu_s: Math.round(cpuMs(agent.child.pid!) / 100) / 10,
    };
  } finally {
    await agent.stop();
    await doubles.close();
  }
}
