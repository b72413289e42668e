import type { AgentEvent, SessionSummary, TurnReport } from '../agent/index.js';
import type { Spurt } from './heard-audio.js';
import type { CallerEnding } from './caller-model.js';

/** An agent event and when it happened on the call's clock. */
export interface TimedEvent {
  atMs: number;
  event: AgentEvent;
}

/** One agent turn as the runner saw it: from its first audio to its report. */
export interface AgentTurn {
  turn: number;
  startMs?: number;
  stopMs?: number;
  report?: TurnReport;
  /** When its report came (a turn without audio has only this). */
  reportMs?: number;
}

/** What the caller did in one step, on the call's clock. */
export interface StepWindow {
  step: number;
  startMs: number;
  /** When the caller began the step's say/play/dtmf/silence (after waiting for the agent). */
  actionStartMs?: number;
  /** The caller's last voice sample (say, play) or key (dtmf). */
  voiceEndMs?: number;
  /** The agent turn the caller barged in on (interrupt_after_ms). */
  bargedTurn?: AgentTurn;
  endMs: number;
  /** What went wrong driving the step (nothing to interrupt, a clip that could not be made). */
  problem?: string;
  /** The caller's action, for transcripts: `said "…"`, `played …`, `pressed …`, `silent 3000 ms`. */
  action?: string;
}

/** One exchange of a simulated caller: what it heard the agent say (as recognised), and the line it said back. */
export interface ConversationTurn {
  heard: string;
  /** When the caller had heard it, on the call's clock. */
  heardAtMs: number;
  said?: string;
  /** The caller speaking `said`. */
  window?: StepWindow;
}

/** A simulated caller's conversation and how it ended. */
export interface Conversation {
  turns: ConversationTurn[];
  ending: CallerEnding;
  reason?: string;
}

/** Everything a scenario's call left behind, for the checks, the transcript and the recording. */
export interface CallLog {
  events: TimedEvent[];
  turns: AgentTurn[];
  windows: StepWindow[];
  spurts: Spurt[];
  summary: SessionSummary;
  /** How the call ended: the agent ended it (with a transfer pending or not) or the caller hung up. */
  endedBy: 'agent' | 'caller';
  endMs: number;
  /** The traceparent the carrier's start message carried. */
  traceparent: string;
  /** The agent's spans by trace id, when the runner made the agent (absent for an agent handed over). */
  traces?: Record<string, number>;
  sampleRate: number;
  /** What the caller sent (left) and heard (right) at the line's rate. */
  callerTrack: Int16Array;
  agentTrack: Int16Array;
  /** Messages the agent sent on the media stream, by event. */
  sentMessages: Record<string, number>;
  /** A simulated caller's conversation, before the steps. */
  conversation?: Conversation;
}

/** Builds the agent turns from the events, in order. */
export function agentTurns(events: readonly TimedEvent[]): AgentTurn[] {
  const turns: AgentTurn[] = [];
  const latest = (turn: number) => turns.findLast((entry) => entry.turn === turn);
  for (const { atMs, event } of events) {
    if (event.type === 'agent-started-speaking') turns.push({ turn: event.turn, startMs: atMs });
    else if (event.type === 'agent-stopped-speaking') {
      const entry = latest(event.turn);
      if (entry && entry.stopMs === undefined) entry.stopMs = atMs;
    } else if (event.type === 'turn-metrics') {
      let entry = latest(event.report.turn);
      if (!entry || entry.report) turns.push((entry = { turn: event.report.turn }));
      entry.report = event.report;
      entry.reportMs = atMs;
    }
  }
  return turns;
}

/** When a turn began, as far as the runner knows (its first audio, else its report). */
export function turnMs(turn: AgentTurn): number {
  return turn.startMs ?? turn.reportMs ?? Infinity;
}
