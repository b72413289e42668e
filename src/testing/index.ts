/**
 * Scenario tests: simulated callers put through an agent on a real line's transport and codecs, on a virtual
 * clock, with a verdict per scenario.
 *
 *   import { loadScenarios, runScenario } from 'shoal/testing';
 *   const [scenario] = await loadScenarios('test/booking.scenarios.yaml');
 *   const result = await runScenario(scenario);   // or ScenarioRunner.open() once for many
 *   expect(result.failures, failureReport(result)).toEqual([]);
 */
export { loadScenarios, parseScenarios, defineScenario, ScenarioFileError } from './load.js';
export { scenarioDefaults, type Scenario, type SimulatedCallerSettings } from './scenario.js';
export { ScenarioRunner, runScenario, type ScenarioResult, type RunOptions, type RunnerOptions } from './runner.js';
export { scenarioDialogue, checkScenarioSetup, ScenarioSetupError, type AgentChoice, type DefaultAgent } from './agent-choice.js';
export { AgentResources } from './agent-resources.js';
export { matches, isSubset, type Failure } from './checks.js';
export { transcript, formatTranscript, failureReport, resultLine, resultRecord, reportRecord, junitXml, stereoWav, type TranscriptLine } from './report.js';
export { suiteReport, figuresOf, figuresLine, type SuiteReport, type ScenarioFigures, type RunFigures } from './suite-report.js';
export { htmlReport } from './html-report.js';
export type { CallStats } from './call-stats.js';
export type { CallerEnding, CallerMove } from './caller-model.js';
export { scenarioFileSchema, scenarioJsonSchema, type ScenarioFile, type ScenarioSpec, type Step, type StepExpectation, type CallExpectation, type Conditions } from './schema.js';
export type { CallLog, AgentTurn, StepWindow, TimedEvent, Conversation, ConversationTurn } from './call-log.js';
export { seededRandom } from '../audio/seeded-random.js';
export type { JudgeOptions, Verdict, JudgedCriterion } from './judge.js';
