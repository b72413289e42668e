/**
 * The agent: caller audio in, agent audio out, turn after turn.
 *
 *   const stack = await createEmbeddedAgentStack({ mode: 'low-latency' });
 *   const session = stack.agentFor(createDialogue('receptionist')).handle(transport);
 *   session.events$.subscribe((event) => ...);   // speaking, transcripts, interruptions, turn metrics
 *   const summary = await session.summary;        // at hangup
 *
 * Or assemble one yourself: `new VoiceAgent({ dialogue, stt, tts, vad, mode })`. Mode defaults are in
 * `modeDefaults`, the rest in `agentDefaults`.
 */
export * from './contracts.js';
export { isOpenVocabulary, noAnswers, yesAnswers, type Expectation, type ExpectationKind } from '../speech/index.js';
export { VoiceAgent } from './voice-agent.js';
export { readCharge, releasedCharge, sumCharges } from './charges.js';
export { ProviderError, failureOfStatus, isProviderError, parseProviderChoices, requireKey, type ProviderChoice, type ProviderDescriptor, type ProviderFailure, type ProviderSettings } from './providers.js';
export { CallSession } from './call-session.js';
export { defaults as agentDefaults, type VoiceAgentOptions, type InterruptionOptions } from './options.js';
export { defaults as failureDefaults, FailurePolicy, failureStage, type FailureOptions, type FailureVerdict } from './failure-policy.js';
export { defaults as modeDefaults, interimEveryMsOf, modeSettings, type AgentMode, type ModeSettings } from './modes.js';
export type { AgentEvent, SessionSummary, TurnMetrics, TurnReport, TurnRecord, Stage, FailureStage } from './events.js';
export { turnRecord } from './events.js';
export { newTurnReport } from './call-report.js';
export { median, percentile } from './events.js';
export { TurnStageError } from './errors.js';
export { CallAdmission, callCpuMsPerSecond, capacityFor, cpuShareForCalls, defaultMaxCalls, defaults as admissionDefaults, type AdmissionOptions, type CallEngines, type AdmittedCall, type AdmissionDecision } from './admission.js';
export { isBackchannel, substantiveWords, playedText } from './interruption.js';
export { traceparentOf, callParentContext } from './tracing.js';
export { StreamingEngineSpeechToText, defaults as streamingSttDefaults, type PauseOptions } from './stt/streaming-engine-stt.js';
export { SegmentServiceSpeechToText, defaults as segmentSttDefaults, type TranscribeWav } from './stt/segment-service-stt.js';
export { ChunkedTextToSpeech, defaults as chunkedTtsDefaults, type SynthesizeChunk } from './tts/chunked-tts.js';
export { FallbackTextToSpeech } from './tts/fallback-tts.js';
export { LiveTextToSpeech, defaults as liveTtsDefaults, type LiveTtsOptions } from './tts/live-tts.js';
export { createLocalAgentStack, localDefaults, type AgentStack, type LocalStackOptions } from './stack/local-stack.js';
export { createEmbeddedAgentStack, embeddedDefaults, type EmbeddedAgentStack, type EmbeddedStackOptions, type SttChoice, type TtsChoice } from './stack/embedded-stack.js';
export { FailoverSpeechToText, defaults as failoverSttDefaults, type FailoverSttOptions } from './stt/failover-stt.js';
export { FailoverTextToSpeech } from './tts/failover-tts.js';
export { TransferTargetError, TransferRefusedError, resolveTransfer, isPhoneNumber, isSipUri, type TransferPolicy, type AllowedTransfer } from './transfer-target.js';
export { SqliteCallStore } from './records/sqlite-call-store.js';
export { wrappedTransport, type TransportChanges } from './wrapped-transport.js';
export { CallRecording, recordedTransport, audioDefaults, RECORDING_RATE } from './records/call-audio.js';
export { RecordingFolder, recordingPath, type RecordingStore, type RecordingWriter } from './records/recording-store.js';
export { CallSpool, spoolFileName, type CallWrite } from './records/call-spool.js';
export { CallWriteQueue, writeQueueDefaults, type RecordsLog, type WriteQueueOptions } from './records/call-write-queue.js';
export { recordCall, recordDefaults, type CallRecords, type CallFacts } from './records/recorder.js';
export { redactText, redactValue, parseRedaction, redactionKinds, type RedactionKind } from './records/redact.js';
export type { CallEnd, CallEntry, CallPage, CallQuery, CallRecord, CallRecordStore, CallSummary } from './records/call-record.js';
