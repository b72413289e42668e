/**
 * Reply after the caller's turn end, from outside, per provider pair: 1 and N concurrent phone calls to one
 * `shoal agent` process on the doubles; every turn answered; the agent process's CPU per call-second, and its
 * event loop's share (the main thread; the rest is the VAD worker and Node's own threads). The caller says
 * "Goodbye": one run of speech without pauses, so no endpoint can fire inside it.
 */
import { modeDefaults, type AgentMode } from '../../src/agent/index.js';
import { p } from '../capacity/measure.js';
import { cpuMs, latencies, phoneCall, shortTurn, startAgent, startDoubles } from './phone.js';

export interface RepliesOptions {
  tts: 'cartesia' | 'elevenlabs';
  mode: AgentMode;
  counts: number[];
  turns: number;
  llmFirstTokenMs: number;
  interims: boolean;
}

const round = (value: number) => Math.round(value * 10) / 10;

export async function measureReplies(o: RepliesOptions) {
  const doubles = await startDoubles({ tts: o.tts, llmFirstTokenMs: o.llmFirstTokenMs, interims: o.interims });
  const agent = await startAgent(doubles, o.tts, o.mode, Math.max(...o.counts) + 10);
  const telephony = `${agent.url.replace(/^http/, 'ws')}telephony`;
  const rows = [];
  try {
    await phoneCall(telephony, shortTurn, 1); // warm-up
    for (const calls of o.counts) {
      const cpuBefore = cpuMs(agent.child.pid!);
      const loopBefore = cpuMs(agent.child.pid!, true);
      const outcomes = await Promise.all(Array.from({ length: calls }, (_, i) => phoneCall(telephony, shortTurn, o.turns, { delayMs: (i * 1000) / calls })));
      const cpu = cpuMs(agent.child.pid!) - cpuBefore;
      const loop = cpuMs(agent.child.pid!, true) - loopBefore;
      const replies = outcomes.flatMap((outcome) => outcome.replies);
      const answered = replies.filter((reply): reply is number => reply !== null);
      const callSeconds = outcomes.reduce((sum, outcome) => sum + outcome.seconds, 0);
      rows.push({
        calls,
        turns: replies.length,
        answered: answered.length,
        reply_after_turn_end_ms: { p50: p(answered, 50), p95: p(answered, 95) },
        agent_cpu_ms_per_call_second: round(cpu / callSeconds),
        agent_event_loop_cpu_ms_per_call_second: round(loop / callSeconds),
        agent_rss_mb: agent.rssMb(),
      });
    }
  } finally {
    await agent.stop();
    await doubles.close();
  }
  const endpointMs = modeDefaults[o.mode].endpointSilenceMs;
  const one = rows.find((row) => row.calls === 1)?.reply_after_turn_end_ms.p95;
  const most = rows.at(-1)!.reply_after_turn_end_ms.p95;
  return {
    stt: 'deepgram',
    tts: o.tts,
    mode: o.mode,
    interims: o.interims,
    llm_first_token_ms: o.llmFirstTokenMs,
    target_reply_ms: endpointMs + latencies.sttFinalMs + latencies.ttsFirstAudioMs + o.llmFirstTokenMs + 80,
    rows,
    p95_ratio_most_to_one: one && most ? round(most / one) : null,
  };
}
