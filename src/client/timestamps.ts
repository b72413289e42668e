import type { CallOptions } from './defaults.js';
import { MalformedResponseError } from './errors.js';
import type { HttpTransport } from './http.js';
import { serverSentEventData } from './sse.js';
import { startCallTrace } from './tracing.js';
import { ttsBody, validateTtsRequest, type TtsOptions } from './tts.js';
import type { Alignment, TtsRequest } from './types.js';
import { spanAttributes } from '../tracing/index.js';

/** A word with absolute times in ms from the start of the whole audio. */
export interface TimedWord {
  text: string;
  startMs: number;
  endMs: number;
}

/** One event of the timestamped stream, with the cumulative-alignment rule already applied. */
export interface TimestampedChunk {
  /** This event's audio (may be empty when only the alignment changed). */
  audio: Uint8Array;
  /** The text chunk this event belongs to. */
  content: string;
  /** The chunk's alignment snapshot as sent (seconds, relative to `offset`), or null. */
  alignment: Alignment | null;
  /** `chunk_audio_offset_sec`: where this chunk's audio starts, seconds. */
  offset: number;
  /** `chunk_seq`. */
  seq: number;
  /** This chunk's words with absolute times (`offset + start`), replacing any earlier snapshot of the chunk. */
  words: TimedWord[];
  /** Every word so far across all chunks, each chunk at its latest snapshot, in chunk order. */
  allWords: TimedWord[];
}

interface WireEvent {
  audio_base64?: string | null;
  content?: string | null;
  alignment?: Alignment | null;
  chunk_seq?: number | null;
  chunk_audio_offset_sec?: number | null;
}

/** Applies the cumulative rule: a chunk's alignment replaces its earlier snapshot; times become absolute ms. */
export class AlignmentTimeline {
  private readonly chunks = new Map<number, TimedWord[]>();

  update(seq: number, offsetSec: number, alignment: Alignment | null): TimedWord[] {
    if (!alignment) return this.chunks.get(seq) ?? [];
    const words = (alignment.segments ?? []).map((segment) => ({
      text: segment.text,
      startMs: Math.round((offsetSec + segment.start) * 1000),
      endMs: Math.round((offsetSec + segment.end) * 1000),
    }));
    this.chunks.set(seq, words);
    return words;
  }

  all(): TimedWord[] {
    return [...this.chunks.entries()].sort(([a], [b]) => a - b).flatMap(([, words]) => words);
  }
}

export function parseTimestampEvent(data: string, timeline: AlignmentTimeline, what: string): TimestampedChunk {
  let event: WireEvent;
  try {
    event = JSON.parse(data) as WireEvent;
  } catch (error) {
    throw new MalformedResponseError(`${what}: an event is not JSON`, 200, data, { cause: error });
  }
  if (!event || typeof event !== 'object') throw new MalformedResponseError(`${what}: an event is not an object`, 200, data);
  const seq = event.chunk_seq ?? 0;
  const offset = event.chunk_audio_offset_sec ?? 0;
  const alignment = event.alignment ?? null;
  const words = timeline.update(seq, offset, alignment);
  return {
    audio: event.audio_base64 ? Buffer.from(event.audio_base64, 'base64') : new Uint8Array(0),
    content: event.content ?? '',
    alignment,
    offset,
    seq,
    words,
    allWords: timeline.all(),
  };
}

export function streamTtsWithTimestamps(
  http: HttpTransport,
  request: TtsRequest,
  options: TtsOptions & CallOptions = {},
): AsyncIterable<TimestampedChunk> {
  validateTtsRequest(request);
  const body = ttsBody(request, options.encoding);
  const model = options.model ?? http.options.model;
  const what = 'POST /v1/tts/stream/with-timestamp';
  return {
    async *[Symbol.asyncIterator]() {
      const trace = startCallTrace('tts.with_timestamp', { [spanAttributes.ttsModel]: model, [spanAttributes.ttsTextChars]: request.text.length }, options.traceparent);
      let failure: unknown;
      try {
        const response = await http.send({
          method: 'POST',
          path: '/v1/tts/stream/with-timestamp',
          headers: { model, accept: 'text/event-stream', ...trace.headers },
          body,
          what,
          call: options,
        });
        const timeline = new AlignmentTimeline();
        for await (const data of serverSentEventData(response.chunks())) {
          if (data === '[DONE]') break;
          yield parseTimestampEvent(data, timeline, what);
        }
      } catch (error) {
        failure = error;
        throw error;
      } finally {
        trace.end(failure);
      }
    },
  };
}
