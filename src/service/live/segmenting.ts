import type { AudioFormat } from '../../audio/index.js';
import type { ChunkingOptions } from '../tts/text-plan.js';

export const defaults = {
  /** Silence appended to each flushed segment so frame-based encoders hand out all of its audio, in ms. */
  drainPaddingMs: { mp3: 80, opus: 40, wav: 0, pcm: 0 } satisfies Record<AudioFormat, number>,
};

export function drainPaddingMs(format: AudioFormat): number {
  return defaults.drainPaddingMs[format];
}

const sentenceEnd = /[.!?。！？]+["'”’)\]]*\s+/g;

/**
 * The part of the live buffer that can be synthesised before a flush: whole sentences once they hold at
 * least `minChunkLength` characters, or, when the buffer grows past `chunkLength` without a sentence end,
 * everything up to its last space. The rest waits for more text, `flush` or `stop`.
 */
export function completeText(buffer: string, options: Pick<ChunkingOptions, 'chunkLength' | 'minChunkLength'>): { ready: string; rest: string } {
  let cut = -1;
  for (const match of buffer.matchAll(sentenceEnd)) cut = match.index + match[0].length;
  if (cut > 0 && buffer.slice(0, cut).trim().length >= Math.max(1, options.minChunkLength)) {
    return { ready: buffer.slice(0, cut), rest: buffer.slice(cut) };
  }
  if (buffer.length > options.chunkLength) {
    const space = buffer.lastIndexOf(' ');
    if (space > 0) return { ready: buffer.slice(0, space + 1), rest: buffer.slice(space + 1) };
  }
  return { ready: '', rest: buffer };
}
