import type { Context } from '@opentelemetry/api';
import { applyGainDb, normalizeLoudness, resample } from '../../audio/index.js';
import type { TextToSpeechEngine, VoiceSettings } from '../../engines/index.js';
import type { WordTiming } from '../../speech/index.js';
import { withChildSpan } from '../http/tracing.js';
import { spanAttributes } from '../../tracing/index.js';

/** A piece of text spoken by one speaker, synthesised in one engine call. */
export interface SpeechChunk {
  text: string;
  /** Index into the request's voices. */
  speaker: number;
}

export interface SynthesisSettings {
  /** One voice per speaker. */
  voices: VoiceSettings[];
  /** prosody.speed: multiplies each voice's own rate. */
  speed: number;
  /** prosody.volume, in dB. */
  volumeDb: number;
  /** Bring each chunk to the loudness target before the volume change. */
  normalizeLoudness: boolean;
}

export interface SynthesizedChunk {
  chunk: SpeechChunk;
  /** Mono PCM at `workingSampleRate`. */
  samples: Int16Array;
  /** Word times relative to the start of this chunk's audio. */
  words: WordTiming[];
}

export const defaults = {
  /** Every chunk is brought to this rate before encoding (the rate of the 16 kHz flite voices). */
  workingSampleRate: 16000,
  /** Loudness target when normalising, in dBFS. */
  loudnessTargetDb: -20,
};

export const workingSampleRate = defaults.workingSampleRate;

/** Synthesises one chunk and applies rate, loudness and volume. */
export async function synthesizeChunk(
  engine: TextToSpeechEngine,
  chunk: SpeechChunk,
  settings: SynthesisSettings,
  signal?: AbortSignal,
): Promise<SynthesizedChunk> {
  const voice = settings.voices[chunk.speaker] ?? settings.voices[0]!;
  const rate = (voice.rate ?? 1) * settings.speed;
  const result = await engine.synthesize(chunk.text, { ...voice, rate }, signal);
  let samples = result.samples;
  if (result.sampleRate !== workingSampleRate && samples.length > 0) {
    samples = await resample(samples, result.sampleRate, workingSampleRate);
  }
  if (settings.normalizeLoudness && samples.length > 0) {
    samples = normalizeLoudness(samples, workingSampleRate, { targetDb: defaults.loudnessTargetDb }).samples;
  }
  if (settings.volumeDb !== 0) samples = applyGainDb(samples, settings.volumeDb);
  return { chunk, samples, words: result.words };
}

/**
 * Synthesises chunks in order, one ahead: chunk n+1 is being synthesised while the caller sends chunk n.
 * Stops early (and starts nothing more) when `signal` aborts or the consumer returns.
 */
export async function* synthesizeChunks(
  engine: TextToSpeechEngine,
  chunks: readonly SpeechChunk[],
  settings: SynthesisSettings,
  options: { signal?: AbortSignal; trace?: Context } = {},
): AsyncGenerator<SynthesizedChunk> {
  const start = (index: number): Promise<SynthesizedChunk> => {
    const run = () => synthesizeChunk(engine, chunks[index]!, settings, options.signal);
    const promise = options.trace
      ? withChildSpan('tts.synthesize', options.trace, run, { [spanAttributes.ttsChunk]: index, [spanAttributes.ttsChunkChars]: chunks[index]!.text.length })
      : run();
    promise.catch(() => {});
    return promise;
  };
  let next = chunks.length > 0 ? start(0) : undefined;
  for (let index = 0; next; index++) {
    const current = await next;
    options.signal?.throwIfAborted();
    next = index + 1 < chunks.length ? start(index + 1) : undefined;
    yield current;
  }
}

/** Duration of PCM at the working rate, in ms. */
export function durationMs(samples: Int16Array): number {
  return (samples.length * 1000) / workingSampleRate;
}
