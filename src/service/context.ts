import { availableParallelism } from 'node:os';
import type { SpeechRecognitionEngine, TextToSpeechEngine } from '../engines/types.js';
import type { AccountGate, VoiceResolver } from './accounts.js';
import { defaults as msgpackDefaults, type MsgpackLimits } from './http/msgpack.js';

/** Request-size and duration limits of the service. */
export interface ServiceLimits {
  /** Largest POST /v1/tts or /v1/tts/stream/with-timestamp body (inline references make them big). */
  ttsBodyBytes: number;
  /** Largest audio file accepted by POST /v1/asr (the interface's 20 MB). */
  asrAudioBytes: number;
  /** Longest audio accepted by POST /v1/asr, in ms (60 minutes). */
  asrMaxDurationMs: number;
  /** Shortest audio accepted by POST /v1/asr, in ms (1 second). */
  asrMinDurationMs: number;
  /** Largest POST /v1/voice-design body. */
  voiceDesignBodyBytes: number;
  /** Body limit of every other route (part 2's model upload sets its own). */
  defaultBodyBytes: number;
  /** Largest text of one TTS request or live session buffer, in characters. */
  maxTextCharacters: number;
  /**
   * HTTP TTS responses synthesised at once (both TTS routes together); one more is refused at once with 503
   * and Retry-After, so the admitted ones keep their pace. Default: one per core (with two per core, a response in
   * progress slowed from 1.1 s to 5.0 s when 59 more arrived: bench/reliability.ts). Live sessions have their own cap.
   */
  ttsStreams: number;
  msgpack: MsgpackLimits;
}

export const defaultLimits: ServiceLimits = {
  ttsBodyBytes: 32 * 1024 * 1024,
  asrAudioBytes: 20 * 1024 * 1024,
  asrMaxDurationMs: 60 * 60 * 1000,
  asrMinDurationMs: 1000,
  voiceDesignBodyBytes: 64 * 1024,
  defaultBodyBytes: 1024 * 1024,
  maxTextCharacters: 100_000,
  ttsStreams: availableParallelism(),
  msgpack: msgpackDefaults,
};

/** Engines, created on first use so a missing optional engine only fails the routes that need it (503). */
export interface ServiceEngines {
  tts(): TextToSpeechEngine;
  asr(): SpeechRecognitionEngine;
}

/** What the routes share. */
export interface ServiceContext {
  accounts: AccountGate;
  voices: VoiceResolver;
  engines: ServiceEngines;
  limits: ServiceLimits;
}
