import { chargeText } from '../http/gate.js';
import type { WordTiming } from '../../speech/index.js';

/** The JSON messages of Deepgram's live `/v1/listen`, in its field names; times are seconds from the stream's start. */

export interface ResultWord {
  word: string;
  start: number;
  end: number;
  confidence: number;
  punctuated_word: string;
}

export interface ResultsMessage {
  type: 'Results';
  channel_index: [number, number];
  duration: number;
  start: number;
  is_final: boolean;
  speech_final: boolean;
  from_finalize: boolean;
  channel: { alternatives: [{ transcript: string; confidence: number; words: ResultWord[] }] };
  metadata: { request_id: string; model_info: { name: string; version: string; arch: string }; model_uuid: string };
}

/** Seconds with millisecond precision. */
export const seconds = (ms: number): number => Math.round(ms) / 1000;

/**
 * pocketsphinx gives no per-word posterior here: a recognised word is reported with confidence 1 and the
 * transcript's confidence is 1 when it has words, else 0 (docs/compatible-deepgram.md).
 */
export function resultWords(words: readonly WordTiming[], offsetMs: number): ResultWord[] {
  return words.map((word) => ({
    word: word.word,
    start: seconds(offsetMs + word.startMs),
    end: seconds(offsetMs + word.endMs),
    confidence: 1,
    punctuated_word: word.word,
  }));
}

export interface ResultsInput {
  requestId: string;
  model: string;
  startMs: number;
  endMs: number;
  words: ResultWord[];
  isFinal: boolean;
  speechFinal: boolean;
  fromFinalize: boolean;
}

export function resultsMessage(input: ResultsInput): ResultsMessage {
  return {
    type: 'Results',
    channel_index: [0, 1],
    duration: seconds(Math.max(0, input.endMs - input.startMs)),
    start: seconds(input.startMs),
    is_final: input.isFinal,
    speech_final: input.speechFinal,
    from_finalize: input.fromFinalize,
    channel: {
      alternatives: [{ transcript: input.words.map((word) => word.word).join(' '), confidence: input.words.length > 0 ? 1 : 0, words: input.words }],
    },
    metadata: { request_id: input.requestId, model_info: { name: input.model, version: 'pocketsphinx', arch: 'pocketsphinx' }, model_uuid: modelUuid },
  };
}

/** A fixed id naming the one recognition model behind every `model` value. */
export const modelUuid = '00000000-0000-4000-8000-000000000001';

export function speechStartedMessage(atMs: number) {
  return { type: 'SpeechStarted', channel: [0, 1], timestamp: seconds(atMs) } as const;
}

export function utteranceEndMessage(lastWordEndSeconds: number) {
  return { type: 'UtteranceEnd', channel: [0, 1], last_word_end: lastWordEndSeconds } as const;
}

/** Deepgram's `Metadata`, with `shoal_charge` (credits, a decimal string) added when the request is billed. */
export function metadataMessage(input: { requestId: string; durationMs: number; model: string; created: Date; chargeMicros: number | null }) {
  const charge = chargeText(input.chargeMicros);
  return {
    type: 'Metadata',
    transaction_key: 'deprecated',
    request_id: input.requestId,
    sha256: '',
    created: input.created.toISOString(),
    duration: seconds(input.durationMs),
    channels: 1,
    models: [modelUuid],
    model_info: { [modelUuid]: { name: input.model, version: 'pocketsphinx', arch: 'pocketsphinx' } },
    ...(charge !== undefined ? { shoal_charge: charge } : {}),
  };
}
