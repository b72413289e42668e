export { normalizeEnglish } from './normalize.js';
export { cardinal, ordinal, year, decimal, digits } from './number-words.js';
export { findBoundaries, splitClauses, splitSentences, type Boundary, type BoundaryKind } from './boundaries.js';
export { TextChunker, chunkText, defaults as chunkerDefaults, type ChunkerOptions, type ChunkLatency } from './chunker.js';
export { parseSpeakerSegments, hasSpeakerTags, SpeakerIndexError, type SpeakerSegment } from './speaker-tags.js';
