import { decodeAudio, encodeWav, resample } from '../../audio/index.js';
import { analyzeVoice, nearestVoice } from '../../engines/index.js';
import type { SpeechRecognitionEngine, TextToSpeechEngine, VoiceSettings } from '../../engines/types.js';

export interface DecodedAudio {
  samples: Int16Array;
  sampleRate: number;
}

/** What model creation needs from the audio library and the engines; injectable so tests can swap engines. */
export interface ModelAudioTools {
  /** Decodes an uploaded file (WAV, MP3, FLAC, Ogg Opus ...) to mono PCM; throws on bytes it cannot read. */
  decode(bytes: Uint8Array): Promise<DecodedAudio>;
  to16k(audio: DecodedAudio): Promise<Int16Array>;
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


/** Tools over the shared audio library and engines (`decodeAudio`, `analyzeVoice`, `nearestVoice`). */
export function createModelAudioTools(engines: ModelEngines): ModelAudioTools {
  return {
    async decode(bytes) {
      const decoded = await decodeAudio(bytes);
      return { samples: decoded.samples, sampleRate: decoded.sampleRate };
    },
    to16k: (decoded) => resample(decoded.samples, decoded.sampleRate, 16_000),
    async voiceSettings(pcm16k) {
      const joined = new Int16Array(pcm16k.reduce((n, part) => n + part.length, 0));
      let offset = 0;
      for (const part of pcm16k) {
        joined.set(part, offset);
        offset += part.length;
      }
      return nearestVoice(analyzeVoice(joined, 16_000));
    },
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
