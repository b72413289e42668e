export { SileroVad, VadFrameSizeError, type SileroVadOptions } from './silero-vad.js';
export { sileroModelPath, sileroSession } from './silero-session.js';
