/**
 * The words every room shares: what a caller is expected to say (`Expectation`), when words are said
 * (`WordTiming`), and a designed voice (`VoiceDesignCandidate`). This room imports no other room of Shoal, so
 * engines, the client, the service and the agent can all use it.
 */
export { expectationSchema, isOpenVocabulary, noAnswers, yesAnswers, type Expectation, type ExpectationKind } from './expectations.js';
export type { WordTiming } from './word-timing.js';
export type { VoiceDesignCandidate } from './voice-design.js';
