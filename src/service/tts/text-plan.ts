import { chunkText, normalizeEnglish, parseSpeakerSegments } from '../../engines/index.js';
import type { SpeechChunk } from './synthesis.js';

export interface ChunkingOptions {
  /** chunk_length: most characters per chunk (100-300). */
  chunkLength: number;
  /** min_chunk_length: fewest characters before a chunk may be cut (0-100). */
  minChunkLength: number;
  /** How early the first chunk is cut: low at the first clause, balanced at the first sentence, normal like any other. */
  latency: 'low' | 'balanced' | 'normal';
  /** Expand numbers, dates and symbols into words (English). */
  normalize: boolean;
}

export interface TextPlan {
  chunks: SpeechChunk[];
  /** Speaker active at the end of the text (a live session continues with it). */
  lastSpeaker: number;
  /** Characters of the text without speaker tags (what is billed). */
  characters: number;
}

const speakerTag = /<\|speaker:(\d+)\|>/g;

/**
 * Splits text at `<|speaker:N|>` tags (400 for an index without a voice), normalises each part when asked
 * and cuts it into chunks; `latency` shapes only the first chunk. Text before the first tag belongs to
 * `startSpeaker`.
 */
export function planChunks(text: string, options: ChunkingOptions, speakerCount: number, startSpeaker = 0): TextPlan {
  const tags = [...text.matchAll(speakerTag)];
  const chunks: SpeechChunk[] = [];
  // A leading tag of the text makes this one an empty segment, which is dropped.
  for (const segment of parseSpeakerSegments(`<|speaker:${startSpeaker}|>${text}`, speakerCount)) {
    const spoken = options.normalize ? normalizeEnglish(segment.text) : segment.text;
    const pieces = chunkText(spoken, {
      chunkLength: options.chunkLength,
      minChunkLength: options.minChunkLength,
      latency: chunks.length === 0 ? options.latency : 'normal',
    });
    for (const piece of pieces) chunks.push({ text: piece, speaker: segment.speaker });
  }
  const lastTag = tags.at(-1);
  return {
    chunks,
    lastSpeaker: lastTag ? Number(lastTag[1]) : startSpeaker,
    characters: text.replace(speakerTag, '').trim().length,
  };
}
