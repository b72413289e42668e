import { FliteEngine, PocketSphinxEngine } from '../engines/index.js';
import type { SpeechRecognitionEngine, TextToSpeechEngine } from '../engines/index.js';
import type { ServiceEngines } from './context.js';

/** flite for TTS and pocketsphinx for ASR, each created on first use and then shared. */
export function defaultEngines(): ServiceEngines {
  let tts: TextToSpeechEngine | undefined;
  let asr: SpeechRecognitionEngine | undefined;
  return {
    tts: () => (tts ??= new FliteEngine()),
    asr: () => (asr ??= new PocketSphinxEngine()),
  };
}
