export * from './echo/index.js';
export * from './scripted/index.js';
export * from './openai/index.js';
export { wordDeltas, streamOutputs, textOutputs } from './word-stream.js';
export * from './deepgram/index.js';
export * from './openai-audio/index.js';
export * from './cartesia/index.js';
export * from './elevenlabs/index.js';
