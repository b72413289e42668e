/** Shoal's root entry: the main classes by name, every part as a namespace. */
export * as audio from './audio/index.js';
export * as speech from './speech/index.js';
export * as engines from './engines/index.js';
export * as service from './service/index.js';
export * as client from './client/index.js';
export * as agent from './agent/index.js';
export * as pipeline from './pipeline/index.js';
export * as transports from './transports/index.js';
export * as tracing from './tracing/index.js';

export { VoiceAgent, createEmbeddedAgentStack, createLocalAgentStack } from './agent/index.js';
export type { Dialogue, Transport, SpeechToText, TextToSpeech, AgentEvent, SessionSummary } from './agent/index.js';
export { SpeechClient } from './client/index.js';
export { createSpeechService, startEmbeddedService } from './service/index.js';
