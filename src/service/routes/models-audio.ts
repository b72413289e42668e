import { concatSamples, encodeWav } from '../../audio/index.js';
import { MediaPool } from '../../engines/index.js';
import type { SpeechRecognitionEngine, TextToSpeechEngine, VoiceSettings } from '../../engines/types.js';

export interface DecodedAudio {
  samples: Int16Array;
  sampleRate: number;
}

/** What model creation needs from the audio library and the engines; injectable so tests can swap engines. */
export interface ModelAudioTools {
  /**
   * Decodes an uploaded file (its bytes, or its path: then it is read in the worker) (WAV, MP3, FLAC, Ogg Opus ...) to mono PCM at its own rate and at 16 kHz;
   * throws on bytes it cannot read.
   */
  decode(file: Uint8Array | string): Promise<{ source: DecodedAudio; pcm16k: Int16Array }>;
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


/** Tools over the media worker pool (decoding, voice analysis) and the engines; nothing heavy on the event loop. */
export function createModelAudioTools(engines: ModelEngines, media: MediaPool = MediaPool.shared()): ModelAudioTools {
  return {
    async decode(file) {
      const decoded = await media.decode(file, { sampleRate: 16_000, keepSource: true });
      return { source: decoded.source ?? { samples: decoded.samples, sampleRate: decoded.sampleRate }, pcm16k: decoded.samples };
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
