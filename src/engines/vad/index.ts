export { SileroVad, VadFrameSizeError } from './silero-vad.js';
export { sileroModelPath, sileroSession } from './silero-session.js';
