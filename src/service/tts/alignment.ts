import type { WordTiming } from '../../speech/index.js';

/** The alignment of one chunk on the wire (docs/realtime-protocol.md): word segments in seconds from the chunk's start. */
export interface ChunkAlignment {
  segments: { text: string; start: number; end: number }[];
  audio_duration: number;
}

const seconds = (ms: number) => Math.round(ms) / 1000;
const edgePunctuation = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

export function chunkAlignment(words: readonly WordTiming[], chunkDurationMs: number): ChunkAlignment {
  const segments: ChunkAlignment['segments'] = [];
  for (const word of words) {
    const text = word.word.replace(edgePunctuation, '');
    if (text) segments.push({ text, start: seconds(word.startMs), end: seconds(word.endMs) });
  }
  return { segments, audio_duration: seconds(chunkDurationMs) };
}
