import type { Clock } from '../../pipeline/clock.js';
import type { AgentEvent } from '../events.js';
import type { CallRecording } from './call-audio.js';
import type { RecordingStore } from './recording-store.js';
import type { CallEntry, CallRecordStore, TransportDescription } from './call-record.js';
import type { CallWrite } from './call-spool.js';
import { CallWriteQueue } from './call-write-queue.js';
import { redactText, redactValue, type RedactionKind } from './redact.js';

export interface CallRecords {
  store: CallRecordStore;
  /** Masked before anything is written (the live dialogue still sees the words). */
  redact?: readonly RedactionKind[];
  /** Entries are written in batches at most this far apart, ms. */
  flushEveryMs?: number;
  /** Records each call's audio as `<call id>.ogg` in this folder (`CallRecording`); absent: no audio. */
  recordingsDir?: string;
  /** Records each call's audio there instead (PostgreSQL's `PgCallStore.recordings`). */
  recordings?: RecordingStore;
  /** Told when writing a call's audio fails; the call goes on. */
  onError?(error: unknown): void;
  /** The store's writes, retried while it is unreachable and spooled at close; one per store by default. */
  writes?: CallWriteQueue;
}

const defaultQueues = new WeakMap<CallRecordStore, CallWriteQueue>();

function queueOf(records: CallRecords): CallWriteQueue {
  if (records.writes) return records.writes;
  const queue = defaultQueues.get(records.store) ?? new CallWriteQueue(records.store);
  defaultQueues.set(records.store, queue);
  return queue;
}

export const recordDefaults = { flushEveryMs: 250 };

/** What the recorder reads of a call (a `CallSession`): its events and its trace id. */
export interface RecordedCall {
  readonly events$: { subscribe(next: (event: AgentEvent) => void): unknown };
  readonly traceId: string;
  /** Read at hangup: credits the recogniser reported only as it was released (`CallSession.recognitionCharge`). */
  readonly recognitionCharge?: Promise<number | undefined>;
}

export interface CallFacts {
  id: string;
  agent: string;
  mode: string;
  transport: TransportDescription;
  clock: Clock;
  /** The call's recording, ended at hang-up. */
  audio?: CallRecording;
}

/** The entry an event adds to the record, if any, timed `atMs` from the call's start. */
function entryOf(event: AgentEvent, atMs: number): CallEntry | undefined {
  switch (event.type) {
    case 'turn-metrics': {
      const { turn, userText, agentText, interrupted, metrics } = event.report;
      return { kind: 'turn', atMs, turn, userText, agentText, interrupted, metrics };
    }
    case 'tool-call':
      if (!event.kept) return undefined;
      return {
        kind: 'tool',
        atMs,
        ...(event.turn !== undefined ? { turn: event.turn } : {}),
        name: event.name,
        arguments: event.arguments,
        ...(event.result !== undefined ? { result: event.result } : {}),
        ...(event.error !== undefined ? { error: event.error } : {}),
      };
    case 'interrupted':
      return { kind: 'interrupted', atMs, turn: event.turn, playedText: event.playedText };
    case 'keypad-entry':
      return { kind: 'keypad', atMs, digits: event.digits };
    case 'error':
      return { kind: 'error', atMs, stage: event.stage, message: event.message };
    case 'assistant-unavailable':
      return { kind: 'unavailable', atMs, stage: event.stage, line: event.line };
    default:
      return undefined;
  }
}

/**
 * When each turn began, for a turn's report: the last time the caller started speaking before the end of speech
 * the reply answered (its start minus voice to voice), or the reply's start when it answered no speech.
 */
function turnStarts(): (event: AgentEvent, atMs: number) => number | undefined {
  const speechStarts: number[] = [];
  const replyStarts = new Map<number, number>();
  return (event, atMs) => {
    if (event.type === 'user-started-speaking') speechStarts.push(atMs);
    if (event.type === 'agent-started-speaking') replyStarts.set(event.turn, atMs);
    if (event.type !== 'turn-metrics') return undefined;
    const replyStart = replyStarts.get(event.report.turn);
    const voiceToVoice = event.report.metrics.voiceToVoiceMs;
    if (replyStart === undefined || voiceToVoice === undefined || event.report.userText === '') return replyStart;
    const speechEnd = replyStart - voiceToVoice;
    return speechStarts.filter((start) => start <= speechEnd).at(-1) ?? replyStart;
  };
}

function redactEntry(entry: CallEntry, kinds: readonly RedactionKind[]): CallEntry {
  if (kinds.length === 0) return entry;
  switch (entry.kind) {
    case 'turn':
      return { ...entry, userText: redactText(entry.userText, kinds), agentText: redactText(entry.agentText, kinds) };
    case 'tool':
      return { ...entry, arguments: redactValue(entry.arguments, kinds), ...(entry.result !== undefined ? { result: redactValue(entry.result, kinds) } : {}) };
    case 'interrupted':
      return { ...entry, playedText: redactText(entry.playedText, kinds) };
    case 'keypad':
      return { ...entry, digits: redactText(entry.digits, kinds) };
    default:
      return entry;
  }
}

/**
 * Keeps one call's record as the call goes: the call row when it starts, its entries in batches (so a process
 * that dies mid-call leaves an unfinished record with what happened so far), and how it ended at hang-up. The
 * writes are queued (`CallWriteQueue`): the call never waits on them, nor fails with them.
 */
export function recordCall(records: CallRecords, session: RecordedCall, facts: CallFacts): void {
  const queue = queueOf(records);
  const callId = facts.id;
  const kinds = records.redact ?? [];
  const flushEveryMs = records.flushEveryMs ?? recordDefaults.flushEveryMs;
  const startedAtMs = facts.clock.now();
  const startedAt = new Date().toISOString();
  let pending: CallEntry[] = [];
  let nextSeq = 0;
  let timer: NodeJS.Timeout | undefined;
  queue.push({ op: 'begin', callId, record: { id: callId, traceId: session.traceId, agent: facts.agent, mode: facts.mode, transport: facts.transport, startedAt } });
  const flush = () => {
    timer = undefined;
    if (pending.length === 0) return;
    queue.push({ op: 'append', callId, firstSeq: nextSeq, entries: pending });
    nextSeq += pending.length;
    pending = [];
  };
  const turnStart = turnStarts();
  session.events$.subscribe((event) => {
    const atMs = Math.round(facts.clock.now() - startedAtMs);
    const entry = entryOf(event, atMs);
    const startedAt = turnStart(event, atMs);
    if (entry?.kind === 'turn' && startedAt !== undefined) entry.startedAtMs = startedAt;
    if (entry) {
      pending.push(redactEntry(entry, kinds));
      timer ??= setTimeout(flush, flushEveryMs);
    }
    if (event.type === 'hangup') {
      if (timer) clearTimeout(timer);
      flush();
      const end = { endedAt: new Date().toISOString(), endedBy: redactText(event.reason, kinds), durationMs: Math.round(event.summary.durationMs) };
      void facts.audio?.end();
      // The record ends once the recogniser has said what it billed (at most its socket's close, about a second).
      queue.pushWhen(
        (session.recognitionCharge ?? Promise.resolve(undefined)).then((sttCharge): CallWrite[] => [
          ...(sttCharge !== undefined ? [{ op: 'append' as const, callId, firstSeq: nextSeq++, entries: [{ kind: 'charge' as const, atMs, sttCharge }] }] : []),
          { op: 'end', callId, end },
        ]),
      );
    }
  });
}
