import type { TransportDescription } from '../contracts.js';
import type { TurnMetrics } from '../events.js';

export type { TransportDescription };

/** One thing that happened in a call, in order, timed from the call's start. */
export type CallEntry =
  | {
      kind: 'turn';
      atMs: number;
      /** When the turn began: the caller started the words it answers (the agent started speaking, for a greeting). */
      startedAtMs?: number;
      turn: number;
      userText: string;
      agentText: string;
      interrupted: boolean;
      metrics: TurnMetrics;
    }
  | { kind: 'tool'; atMs: number; turn?: number; name: string; arguments: unknown; result?: unknown; error?: string }
  | { kind: 'interrupted'; atMs: number; turn: number; playedText: string }
  | { kind: 'keypad'; atMs: number; digits: string }
  | { kind: 'error'; atMs: number; stage: string; message: string }
  | { kind: 'unavailable'; atMs: number; stage: string; line: string }
  /** What the speech service billed for the call's recognition, reported only as the call ended (Shoal's `/v1/listen`). */
  | { kind: 'charge'; atMs: number; sttCharge: number };

/** A call as the records keep it: who, when, how it ended, and what happened in it. */
export interface CallRecord {
  id: string;
  traceId: string;
  agent: string;
  mode: string;
  transport: TransportDescription;
  startedAt: string;
  /** Absent while the call runs, and on a call whose process stopped before it ended (`finished: false`). */
  endedAt?: string;
  /** The reason the call ended: `caller hung up`, `agent ended the call`, `transfer to …`, `error`, …. */
  endedBy?: string;
  finished: boolean;
  durationMs?: number;
  entries: CallEntry[];
  /**
   * Credits the speech service billed for the call's recognition and synthesis: its turns' `sttCharge` and
   * `ttsCharge` summed; null when no turn has one (a service that reports no charge).
   */
  charge: number | null;
}

/** A record without its entries, as lists show it, with the figures filters use. */
export interface CallSummary extends Omit<CallRecord, 'entries' | 'charge'> {
  turns: number;
  /** The slowest turn's voice-to-voice, ms. */
  slowestTurnMs?: number;
  failedTools: number;
}

/** What `list` filters on; every field is optional and they combine. */
export interface CallQuery {
  /** ISO times: calls started at or after / before. */
  since?: string;
  until?: string;
  from?: string;
  to?: string;
  endedBy?: string;
  /** Words anywhere in what was said or in a tool's arguments or result. */
  text?: string;
  /** Calls with a turn slower than this voice-to-voice, ms. */
  slowerThanMs?: number;
  failedTools?: boolean;
  limit?: number;
  /** The `next` of the previous page. */
  before?: string;
}

export interface CallPage {
  calls: CallSummary[];
  /** Pass as `before` for the next page; absent on the last page. */
  next?: string;
}

export interface CallEnd {
  endedAt: string;
  endedBy: string;
  durationMs: number;
}

/**
 * Where call records are kept. Writes are idempotent, so a write retried after a failure (or replayed from the
 * spool) never adds twice: a call row already there is kept, and a batch whose entries (`firstSeq` on) are already
 * there adds nothing. Calls never wait on them (see `CallWriteQueue`).
 */
export interface CallRecordStore {
  begin(record: Omit<CallRecord, 'entries' | 'finished' | 'charge'>): Promise<void>;
  /** `firstSeq`: the call's number of the batch's first entry (by default, after those kept). */
  append(callId: string, entries: readonly CallEntry[], firstSeq?: number): Promise<void>;
  end(callId: string, end: CallEnd): Promise<void>;
  get(callId: string): Promise<CallRecord | undefined>;
  list(query: CallQuery): Promise<CallPage>;
  /** Deletes calls started before `before` (ISO time); the count. */
  deleteBefore(before: string): Promise<number>;
  /** On a store shared by a fleet: whether this instance runs retention now (one instance per `everyMs`). */
  claimSweep?(everyMs: number): Promise<boolean>;
  close(): Promise<void>;
}
