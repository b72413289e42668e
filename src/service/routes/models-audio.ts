import { concatSamples, encodeWav, type SampleMeasures } from '../../audio/index.js';
import { MediaPool } from '../../engines/index.js';
import type { SpeechRecognitionEngine, TextToSpeechEngine, VoiceSettings } from '../../engines/types.js';

export interface DecodedAudio {
  samples: Int16Array;
  sampleRate: number;
}

export interface PreparedSample {
  measures: SampleMeasures;
  wav: Uint8Array;
  pcm16k: Int16Array;
}

/** What model creation needs from the audio library and the engines; injectable so tests can swap engines. */
export interface ModelAudioTools {
  /**
   * Prepares an uploaded voice file (its bytes, or its path) (WAV, MP3, FLAC, Ogg Opus ...): its measures, the
   * WAV to store (enhanced when asked) and its mono samples at 16 kHz; throws on bytes it cannot read.
   */
  prepareSample(file: Uint8Array | string, enhance: boolean): Promise<PreparedSample>;
  /** The engine voice settings closest to the speaker of these 16 kHz samples; ReferenceTooShortError without voiced speech. */
  voiceSettings(pcm16k: Int16Array[]): Promise<VoiceSettings>;
  /** Throws EngineUnavailableError when no recogniser is installed. */
  transcribe(pcm16k: Int16Array): Promise<{ text: string; language: string }>;
  /** Throws EngineUnavailableError when no synthesiser is available. */
  synthesize(text: string, voice: VoiceSettings): Promise<DecodedAudio>;
  encodeWav(audio: DecodedAudio): Uint8Array;
}

export interface ModelEngines {
  tts(): TextToSpeechEngine;
  asr(): SpeechRecognitionEngine;
}

/** Tools over the media engine pool (decoding, measuring, enhancing, voice analysis) and the engines; nothing heavy on the event loop. */
export function createModelAudioTools(engines: ModelEngines, media: MediaPool = MediaPool.shared()): ModelAudioTools {
  return {
    async prepareSample(file, enhance) {
      const { measures, wav, pcm16k } = await media.prepareSample(file, { enhance });
      return { measures, wav, pcm16k };
    },
    voiceSettings: (pcm16k) => media.voiceOfPcm(concatSamples(pcm16k)),
    async transcribe(pcm16k) {
      const hypothesis = await engines.asr().transcribe(pcm16k, { language: 'en' });
      return { text: hypothesis.text, language: hypothesis.text ? 'en' : 'unknown' };
    },
    async synthesize(text, voice) {
      const result = await engines.tts().synthesize(text, voice);
      return { samples: result.samples, sampleRate: result.sampleRate };
    },
    encodeWav: (decoded) => encodeWav(decoded.samples, decoded.sampleRate),
  };
}
