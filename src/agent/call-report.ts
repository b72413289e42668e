import type { Span } from '@opentelemetry/api';
import { median, type SessionSummary, type TurnMetrics, type TurnReport } from './events.js';
import type { AgentReply } from './reply.js';
import { turnAttributes } from './tracing.js';

/** A turn's report; the snake_case names of older releases read through as deprecated, non-enumerable getters. */
export function newTurnReport(fields: Partial<Omit<TurnReport, 'user_text' | 'agent_text'>> = {}): TurnReport {
  const report = { turn: 0, userText: '', agentText: '', interrupted: false, metrics: { interrupted: false }, ...fields };
  return Object.defineProperties(report, {
    user_text: { get: () => report.userText, enumerable: false },
    agent_text: { get: () => report.agentText, enumerable: false },
  }) as TurnReport;
}

/** Fills a turn's metrics from its reply; the framework's share is voice-to-voice minus the stages it waited for. */
export function completeTurnMetrics(report: TurnReport, reply: AgentReply, agentText: string, finalWall?: number): void {
  report.agentText = agentText;
  const m: TurnMetrics = report.metrics;
  m.dialogueFirstTokenMs = reply.dialogueFirstTokenMs;
  m.ttsFirstAudioMs = reply.ttsFirstAudioMs;
  if (reply.ttsProvider) m.ttsProvider = reply.ttsProvider;
  if (reply.ttsCharge !== undefined) m.ttsCharge = reply.ttsCharge;
  if (m.voiceToVoiceMs === undefined) return;
  const heard = (m.endpointingMs ?? 0) + (m.endOfSpeechToFinalMs ?? 0);
  if (!m.preemptive) {
    m.frameworkOverheadMs = Math.max(0, m.voiceToVoiceMs - heard - (m.dialogueFirstTokenMs ?? 0) - (m.ttsFirstAudioMs ?? 0));
  } else if (finalWall !== undefined && reply.firstAudioWall !== undefined) {
    // A preemptive reply ran dialogue and synthesis before the final; only what was still awaited after it counts.
    m.frameworkOverheadMs = Math.max(0, m.voiceToVoiceMs - heard - Math.max(0, reply.firstAudioWall - finalWall));
  }
}

export interface CallTotals {
  reason: string;
  durationMs: number;
  reports: TurnReport[];
  interruptions: number;
  errors: number;
  traceId: string;
}

/** The session summary given at hangup, with medians over the turns that have each figure. */
export function summarizeCall(totals: CallTotals): SessionSummary {
  const pick = (key: keyof TurnMetrics) =>
    median(totals.reports.map((r) => r.metrics[key]).filter((v): v is number => typeof v === 'number'));
  return {
    reason: totals.reason,
    durationMs: totals.durationMs,
    turns: totals.reports,
    interruptions: totals.interruptions,
    errors: totals.errors,
    traceId: totals.traceId,
    p50: {
      voiceToVoiceMs: pick('voiceToVoiceMs'),
      endOfSpeechToFinalMs: pick('endOfSpeechToFinalMs'),
      dialogueFirstTokenMs: pick('dialogueFirstTokenMs'),
      ttsFirstAudioMs: pick('ttsFirstAudioMs'),
    },
  };
}

/** What one call has done so far: its finished turns and counters, ready to become the hangup summary. */
export class CallRecord {
  interruptions = 0;
  errors = 0;
  private readonly reports: TurnReport[] = [];
  private lastTurn = 0;

  constructor(
    private readonly traceId: string,
    private readonly startedAtMs: number,
  ) {}

  /** Gives a turn the next number, once. */
  number(report: TurnReport): void {
    if (report.turn === 0) report.turn = ++this.lastTurn;
  }

  /** Completes a turn's metrics, puts them on its span, ends the span and keeps the report. */
  close(report: TurnReport, reply: AgentReply, agentText: string, turnSpan: Span, finalWall?: number): void {
    completeTurnMetrics(report, reply, agentText, finalWall);
    turnSpan.setAttributes(turnAttributes(report));
    turnSpan.end();
    this.reports.push(report);
  }

  summary(reason: string, nowMs: number): SessionSummary {
    const { reports, interruptions, errors, traceId } = this;
    return summarizeCall({ reason, durationMs: nowMs - this.startedAtMs, reports, interruptions, errors, traceId });
  }
}
