export { resampleTo } from './resample.js';
export { reframe } from './reframe.js';
export { scoreSpeech, type ScoredFrame } from './vad.js';
export { segmentUtterances, defaults as utteranceDefaults, type UtteranceOptions, type VoiceEvent } from './utterances.js';
export { chunkText, defaults as chunkDefaults, type ChunkOptions } from './chunk-text.js';
export { playOut, PacedPlayout, defaults as playoutDefaults, type PlayoutOptions, type PlayoutEvent, type PlayoutControl, type PlayoutSink } from './playout.js';
export { systemClock, VirtualClock, type Clock } from './clock.js';
export { WorkTracker, trackedWork } from './work.js';
