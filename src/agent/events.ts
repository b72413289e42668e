import type { Expectation } from '../speech/index.js';

/** Timings of one turn, all in ms; a figure is absent when its stage did not run (e.g. a greeting has no ASR). */
export interface TurnMetrics {
  /** Endpoint fired → final transcript. */
  endOfSpeechToFinalMs?: number;
  /** Dialogue asked → first text delta. */
  dialogueFirstTokenMs?: number;
  /** First text piece sent to speech → first audio back. */
  ttsFirstAudioMs?: number;
  /** Last caller voice sample → first agent sample handed to the transport. */
  voiceToVoiceMs?: number;
  /** Silence waited for the endpoint (part of voice-to-voice). */
  endpointingMs?: number;
  /** Voice-to-voice minus endpointing, ASR, dialogue and TTS time: what the framework itself added. */
  frameworkOverheadMs?: number;
  /** The dialogue was started on a stable interim transcript before the endpoint. */
  preemptive?: boolean;
  interrupted: boolean;
  /** The speech provider that gave the final transcript (`TranscriptEvent.provider`), when it says. */
  sttProvider?: string;
  /** The speech provider that spoke the reply's first audio (`SpokenAudio.provider`), when it says. */
  ttsProvider?: string;
  /** Credits the speech service billed for recognising the turn's utterance (interims too), when it says (`TranscriptEvent.charge`). */
  sttCharge?: number;
  /** Credits the speech service billed for synthesising the reply, when it says (`SpeechRequest.charged`). */
  ttsCharge?: number;
}

/** One finished turn as reported to applications and by `shoal talk --json`. */
export interface TurnReport {
  turn: number;
  userText: string;
  agentText: string;
  interrupted: boolean;
  metrics: TurnMetrics;
  /** @deprecated use `userText` (readable on reports the agent makes, never serialised). */
  readonly user_text: string;
  /** @deprecated use `agentText` (readable on reports the agent makes, never serialised). */
  readonly agent_text: string;
}

/** A turn as `shoal talk --json` prints it (snake_case wire keys): `{turn, user_text, agent_text, interrupted, metrics}`. */
export interface TurnRecord {
  turn: number;
  user_text: string;
  agent_text: string;
  interrupted: boolean;
  metrics: TurnMetrics;
}

/** The wire record of a turn report. */
export function turnRecord(report: TurnReport): TurnRecord {
  return { turn: report.turn, user_text: report.userText, agent_text: report.agentText, interrupted: report.interrupted, metrics: report.metrics };
}

export interface SessionSummary {
  reason: string;
  durationMs: number;
  turns: TurnReport[];
  interruptions: number;
  errors: number;
  traceId: string;
  /** Medians over the turns that have the figure. */
  p50: { voiceToVoiceMs?: number; endOfSpeechToFinalMs?: number; dialogueFirstTokenMs?: number; ttsFirstAudioMs?: number };
}

export type Stage = 'asr' | 'dialogue' | 'tts' | 'transport' | 'vad';

/** What the caller notices failing: hearing them (asr, vad), thinking of a reply (dialogue), speaking (tts, transport). */
export type FailureStage = 'listening' | 'thinking' | 'speaking';

export type AgentEvent =
  | { type: 'user-started-speaking'; atMs: number }
  | { type: 'user-stopped-speaking'; atMs: number }
  | { type: 'transcript'; text: string; final: boolean }
  | { type: 'agent-started-speaking'; turn: number; atMs: number }
  | { type: 'agent-stopped-speaking'; turn: number; interrupted: boolean }
  /** Caller sound while the agent spoke: playout paused until it is known to be words. */
  | { type: 'agent-paused'; turn: number }
  /** A false interruption (noise, backchannel): playout goes on where it stopped. */
  | { type: 'agent-resumed'; turn: number }
  | { type: 'interrupted'; turn: number; playedText: string }
  | { type: 'turn-metrics'; report: TurnReport }
  /**
   * A tool the dialogue called. `reply` numbers the call's replies (a turn started on an interim transcript may
   * have a discarded reply before the kept one); `kept` is false when that reply was thrown away. A speculative
   * reply's tool calls are reported once it is kept or discarded.
   */
  | {
      type: 'tool-call';
      reply: number;
      turn?: number;
      speculative: boolean;
      kept: boolean;
      id?: string;
      name: string;
      arguments: Record<string, unknown>;
      result?: unknown;
      error?: string;
    }
  /** A stage failed and the caller heard its unavailable line; `hangup` when the failure policy ends the call. */
  | { type: 'assistant-unavailable'; stage: FailureStage; failures: number; line: string; hangup: boolean }
  /** A key pressed on the caller's keypad (DTMF). */
  | { type: 'dtmf'; digit: string }
  /** A keypad entry completed (`#` or the expected length): it is the caller's turn, as if spoken. */
  | { type: 'keypad-entry'; digits: string }
  /** What the caller is expected to say next, as given to recognition and endpointing (absent: anything). */
  | { type: 'expecting'; expectations?: readonly Expectation[] }
  | { type: 'hangup'; reason: string; summary: SessionSummary }
  | { type: 'error'; stage: Stage; message: string };

export function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}
