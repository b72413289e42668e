/** The self-hosted speech service (docs/service-api.md, docs/realtime-protocol.md) on local engines. */
export { createSpeechService, defaults as speechServiceDefaults } from './server.js';
export type { SpeechService, SpeechServiceOptions } from './server.js';
export { startEmbeddedService } from './embedded.js';
export type { EmbeddedService, EmbeddedServiceOptions } from './embedded.js';
export { ServiceError } from './accounts.js';
export type { AccountGate, Principal, Reservation, Usage, VoiceResolver } from './accounts.js';
export { SingleKeyAccounts, type ChargeRecord } from './single-key-accounts.js';
export { BuiltinVoices, builtinVoices, describeBuiltinVoices, type BuiltinVoice } from './builtin-voices.js';
export { defaultLimits, type ServiceContext, type ServiceEngines, type ServiceLimits } from './context.js';
export { RequestValidationError, type ValidationIssue } from './http/errors.js';
export { modelIds, defaultModel, modelProfiles, type ModelId, type ModelProfile } from './tts/models.js';
export type { LiveOptions } from './live/options.js';
export {
  answerClientError,
  answerRawSocket,
  applyConnectionLimits,
  defaults as connectionDefaults,
  httpServerOptions,
  type ConnectionLimits,
} from './http/connection-limits.js';
