export { FliteEngine, limits as fliteLimits, wordsOf } from './engine.js';
export { FliteProgram, defaults as fliteProgramDefaults, type FliteProgramOptions } from './flite-program.js';
export { fliteVoices, isFliteVoice, type FliteVoiceInfo } from './voices.js';
