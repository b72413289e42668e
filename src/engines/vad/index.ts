export { providerQuietBelowDbfs, quietBelowFromEnv, SileroVad, VadFrameSizeError, type SileroRunner, type SileroVadOptions } from './silero-vad.js';
export { SileroPool, wallTimer, type SileroChannel, type WindowTimer } from './silero-pool.js';
export { sileroInference, sileroModelPath, sileroSession, type SileroInference, type SileroStep } from './silero-session.js';
export { speechDefaults } from './speech-thresholds.js';
