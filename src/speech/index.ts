/**
 * The words every room shares: what a caller is expected to say (`Expectation`) and when words are
 * said (`WordTiming`). This room imports no other room of Shoal, so engines, the client, the service
 * and the agent can all use it.
 */
export { expectationSchema, isOpenVocabulary, noAnswers, yesAnswers, type Expectation, type ExpectationKind } from './expectations.js';
export type { WordTiming } from './word-timing.js';
