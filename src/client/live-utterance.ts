import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { LiveOptions } from './defaults.js';
import type { CallTrace } from './tracing.js';
import type { ServerLiveEvent } from './live-socket.js';
import type { TimedWord } from './timestamps.js';
import type { Alignment, TtsRequest } from './types.js';

export type LiveEvent =
  /** With `timestamps`, `words` are this chunk's words in absolute ms (`offset + start`), replacing the chunk's earlier snapshot. */
  | { type: 'audio'; utterance: number; audio: Uint8Array; timeMs?: number; content?: string; alignment?: Alignment | null; offset?: number; seq?: number; words?: TimedWord[] }
  /** The utterance's audio is complete (the server's `utterance_end`, an audio idle gap, or `finish`). */
  | { type: 'utterance-end'; utterance: number; text: string; audioBytes: number; /** Shoal extension (`utterance_end` with `utterance_end: true` flushes): what the utterance was billed, in credits. */ charge?: number }
  /** The socket dropped while this utterance was speaking; it is synthesized again from its start, so a player should discard its partial audio. */
  | { type: 'utterance-restart'; utterance: number; droppedBytes: number }
  /** `cancel()` dropped these utterances; no more audio of them follows. */
  | { type: 'cancelled'; utterances: number[] }
  | { type: 'reconnected'; attempt: number }
  /** The server finished after `stop()`. */
  | { type: 'finish'; /** Shoal extension: what the round was billed, in credits, when the service says. */ charge?: number };

export interface UtteranceResult {
  utterance: number;
  text: string;
  audioBytes: number;
  outcome: 'spoken' | 'cancelled' | 'failed';
  error?: unknown;
}

/** What the session needs from its client. */
export interface LiveConnection {
  baseUrl: string;
  headers: Record<string, string>;
  request: TtsRequest;
  timestamps: boolean;
  options: Required<LiveOptions>;
  trace: CallTrace;
  agent?: HttpAgent | HttpsAgent;
}

export interface Utterance {
  id: number;
  text: string;
  flushed: boolean;
  viaStop: boolean;
  textSent: number;
  endSent: boolean;
  audioBytes: number;
  resolve(result: UtteranceResult): void;
  done: Promise<UtteranceResult>;
}

export function newUtterance(id: number, into: Utterance[]): Utterance {
  let resolve!: (result: UtteranceResult) => void;
  const done = new Promise<UtteranceResult>((r) => (resolve = r));
  const utterance: Utterance = { id, text: '', flushed: false, viaStop: false, textSent: 0, endSent: false, audioBytes: 0, resolve, done };
  into.push(utterance);
  return utterance;
}

export function utteranceResult(utterance: Utterance, outcome: UtteranceResult['outcome'], error?: unknown): UtteranceResult {
  return { utterance: utterance.id, text: utterance.text, audioBytes: utterance.audioBytes, outcome, ...(error ? { error } : {}) };
}

export function describeServerError(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && 'message' in value && typeof value.message === 'string') return value.message;
  return value === undefined ? 'the server reported an error' : JSON.stringify(value);
}

/** The with-timestamp fields of a live audio event, with word times made absolute. */
export function timestampFields(event: ServerLiveEvent) {
  const alignment = (event.alignment ?? null) as Alignment | null;
  const offset = event.chunk_audio_offset_sec ?? 0;
  const words = (alignment?.segments ?? []).map((segment) => ({
    text: segment.text,
    startMs: Math.round((offset + segment.start) * 1000),
    endMs: Math.round((offset + segment.end) * 1000),
  }));
  return { content: event.content, alignment, offset, seq: event.chunk_seq, words };
}
