import type { CallerEnding } from './caller-model.js';
import type { CallLog, StepWindow } from './call-log.js';

/** What one call came to, beyond its verdict: the suite report sums these. */
export interface CallStats {
  /** Agent turns the caller barged in on (the agent stopped). */
  bargedIn: number;
  /** Times the agent started speaking while the caller was speaking. */
  talkedOver: number;
  /** The tools the agent called (kept replies only), in order. */
  toolCalls: string[];
  /** A simulated caller's lines, and how its conversation ended. */
  callerLines?: number;
  callerEnding?: CallerEnding;
}

export function callStats(log: CallLog | undefined): CallStats {
  if (!log) return { bargedIn: 0, talkedOver: 0, toolCalls: [] };
  const windows: StepWindow[] = [...log.windows, ...(log.conversation?.turns.flatMap((turn) => (turn.window ? [turn.window] : [])) ?? [])];
  const speaking = windows.flatMap((window) => (window.actionStartMs !== undefined && window.voiceEndMs !== undefined ? [[window.actionStartMs, window.voiceEndMs] as const] : []));
  const conversation = log.conversation;
  return {
    bargedIn: log.turns.filter((turn) => turn.report?.interrupted).length,
    talkedOver: log.spurts.filter((spurt) => speaking.some(([from, to]) => spurt.startMs > from && spurt.startMs < to)).length,
    toolCalls: log.events.flatMap(({ event }) => (event.type === 'tool-call' && event.kept ? [event.name] : [])),
    ...(conversation ? { callerLines: conversation.turns.filter((turn) => turn.said !== undefined).length, callerEnding: conversation.ending } : {}),
  };
}
