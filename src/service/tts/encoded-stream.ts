import { setImmediate as nextTurn } from 'node:timers/promises';
import { concatBytes, type AsyncStreamingEncoder } from '../../audio/index.js';
import type { SynthesizedChunk } from './synthesis.js';

export const defaults = {
  /** The first piece of a chunk handed to the encoder, in input samples (100 ms at 16 kHz): small, so bytes leave early. */
  firstPieceSamples: 1600,
  /** Later pieces (500 ms at 16 kHz); between pieces the event loop serves sockets and other requests. */
  pieceSamples: 8000,
};

export interface EncodedChunk {
  chunk: SynthesizedChunk;
  /** Encoded bytes produced for this chunk (the last one includes the encoder's tail). */
  bytes: Uint8Array;
  /** Index of the chunk in the response. */
  seq: number;
  /** Where this chunk's audio starts in the response, in ms. */
  offsetMs: number;
}

/** Synthesised chunks: the first already awaited (so failures before any audio still get a status), then the rest. */
export interface ChunkSource {
  first: IteratorResult<SynthesizedChunk>;
  rest: AsyncIterator<SynthesizedChunk>;
  count: number;
  /** Called when a chunk's audio starts going out (what is billed when the client leaves early). */
  onSent?: (chunk: SynthesizedChunk) => void;
}

/** Encodes samples a piece at a time, yielding each piece's bytes and first sample (small pieces first, so bytes leave early). */
export async function* encodeInPieces(encoder: AsyncStreamingEncoder, samples: Int16Array): AsyncGenerator<{ bytes: Uint8Array; start: number }> {
  let offset = 0;
  let size = defaults.firstPieceSamples;
  while (offset < samples.length) {
    yield { bytes: await encoder.write(samples.subarray(offset, offset + size)), start: offset };
    offset += size;
    size = defaults.pieceSamples;
    if (offset < samples.length) await nextTurn();
  }
}

/** Frees the encoder and stops the synthesis of a stream that ended early (client gone, or a failure). */
function abandon(source: ChunkSource, encoder: AsyncStreamingEncoder): void {
  source.rest.return?.().catch(() => {});
  encoder.close();
}

/** The encoded bytes of all chunks as they come, for a chunked HTTP body. The encoder is always ended. */
export async function* encodeBytes(source: ChunkSource, encoder: AsyncStreamingEncoder): AsyncGenerator<Uint8Array> {
  let ended = false;
  try {
    for (let current = source.first; !current.done; current = await source.rest.next()) {
      source.onSent?.(current.value);
      for await (const { bytes } of encodeInPieces(encoder, current.value.samples)) if (bytes.length > 0) yield bytes;
    }
    ended = true;
    const tail = await encoder.end();
    if (tail.length > 0) yield tail;
  } finally {
    if (!ended) abandon(source, encoder);
  }
}

/** One encoded unit per chunk (for events that carry a chunk's text and alignment); the last carries the encoder's tail. */
export async function* encodeChunks(source: ChunkSource, encoder: AsyncStreamingEncoder): AsyncGenerator<EncodedChunk> {
  let ended = false;
  let offsetMs = 0;
  try {
    let seq = 0;
    for (let current = source.first; !current.done; current = await source.rest.next(), seq++) {
      source.onSent?.(current.value);
      const parts: Uint8Array[] = [];
      for await (const { bytes } of encodeInPieces(encoder, current.value.samples)) parts.push(bytes);
      if (seq === source.count - 1) {
        ended = true;
        parts.push(await encoder.end());
      }
      yield { chunk: current.value, bytes: concatBytes(parts), seq, offsetMs };
      offsetMs += (current.value.samples.length * 1000) / encoder.inputSampleRate;
    }
  } finally {
    if (!ended) abandon(source, encoder);
  }
}
