import type { WordTiming } from '../../speech/index.js';
import { segmentWords, type TranscriptSegment } from '../asr/segments.js';

export const responseFormats = ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const;
export type ResponseFormat = (typeof responseFormats)[number];

export interface Transcript {
  text: string;
  words: readonly WordTiming[];
  durationMs: number;
  /** The request's language code (`en` when none was given). */
  language: string;
  temperature: number;
}

const seconds = (ms: number) => Math.round(ms) / 1000;

/** OpenAI's `usage` of a transcription billed by duration. */
export function durationUsage(transcript: Transcript): { type: 'duration'; seconds: number } {
  return { type: 'duration', seconds: Math.ceil(transcript.durationMs / 1000) };
}

/** `en` becomes `english`, as OpenAI's verbose_json names languages. */
function languageName(code: string): string {
  try {
    return (new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code).toLowerCase();
  } catch {
    return code;
  }
}

/** `00:01:02,345` (SRT) or `00:01:02.345` (WebVTT). */
function clock(totalSeconds: number, separator: ',' | '.'): string {
  const ms = Math.round(totalSeconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

function srt(segments: readonly TranscriptSegment[]): string {
  return segments.map((segment, index) => `${index + 1}\n${clock(segment.start, ',')} --> ${clock(segment.end, ',')}\n${segment.text}\n`).join('\n');
}

function vtt(segments: readonly TranscriptSegment[]): string {
  return `WEBVTT\n\n${segments.map((segment) => `${clock(segment.start, '.')} --> ${clock(segment.end, '.')}\n${segment.text}\n`).join('\n')}`;
}

/**
 * OpenAI's verbose_json. `tokens` is empty and `avg_logprob`, `compression_ratio` and `no_speech_prob` are
 * neutral constants: the recogniser computes none of them.
 */
function verbose(transcript: Transcript, segments: readonly TranscriptSegment[], withWords: boolean): Record<string, unknown> {
  return {
    task: 'transcribe',
    language: languageName(transcript.language),
    duration: seconds(transcript.durationMs),
    text: transcript.text,
    segments: segments.map((segment, id) => ({
      id,
      seek: 0,
      start: segment.start,
      end: segment.end,
      text: segment.text,
      tokens: [],
      temperature: transcript.temperature,
      avg_logprob: 0,
      compression_ratio: 1,
      no_speech_prob: 0,
    })),
    ...(withWords ? { words: transcript.words.map((word) => ({ word: word.word, start: seconds(word.startMs), end: seconds(word.endMs) })) } : {}),
    usage: durationUsage(transcript),
  };
}

/** The response body and its content type for a `response_format`. */
export function formatTranscript(
  transcript: Transcript,
  format: ResponseFormat,
  granularities: { words: boolean; segments: boolean },
): { contentType: string; body: string | Record<string, unknown> } {
  const segments = segmentWords(transcript.words);
  switch (format) {
    case 'json':
      return { contentType: 'application/json', body: { text: transcript.text, usage: durationUsage(transcript) } };
    case 'text':
      return { contentType: 'text/plain; charset=utf-8', body: `${transcript.text}\n` };
    case 'srt':
      return { contentType: 'text/plain; charset=utf-8', body: srt(segments) };
    case 'vtt':
      return { contentType: 'text/vtt; charset=utf-8', body: vtt(segments) };
    case 'verbose_json':
      return { contentType: 'application/json', body: verbose(transcript, granularities.segments || !granularities.words ? segments : [], granularities.words) };
  }
}

/** `transcript.text.delta` per segment, then `transcript.text.done`, as server-sent events. */
export function transcriptEvents(transcript: Transcript): string {
  const segments = segmentWords(transcript.words);
  const events: Record<string, unknown>[] = segments.map((segment, index) => ({
    type: 'transcript.text.delta',
    delta: index === 0 ? segment.text : ` ${segment.text}`,
  }));
  events.push({ type: 'transcript.text.done', text: transcript.text, usage: durationUsage(transcript) });
  return events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('');
}
