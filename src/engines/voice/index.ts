export { analyzeVoice, ReferenceTooShortError, type VoiceAnalysis } from './analyze.js';
export { nearestVoice, defaults as nearestVoiceDefaults, type NearestVoiceOptions } from './nearest-voice.js';
export { trackPitch } from './pitch.js';
