import type { SynthesisResult, TextToSpeechEngine, VoiceSettings, WordTiming } from '../types.js';
import { InvalidVoiceSettingsError } from '../errors.js';
import { FliteProgram } from './flite-program.js';
import { alignWords, estimateWords, parseSegmentDurations } from './phone-alignment.js';
import { PronunciationLookup } from './pronunciations.js';
import { parseFliteWav } from './riff.js';
import { fliteVoices, isFliteVoice } from './voices.js';

/** Limits of the settings flite is driven with. */
export const limits = { minRate: 0.25, maxRate: 4, minPitchHz: 40, maxPitchHz: 400 } as const;

const outputFile = 'out.wav';

/**
 * Text to speech with flite (WASI build) running in a worker thread, entirely in memory.
 * Word times come from flite's own segment durations: each word's phones are aligned to the
 * synthesised phone sequence, so they are the synthesiser's times, not estimates. If a word's
 * pronunciation cannot be matched, the times of that text fall back to a character-proportional
 * estimate over the speech between pauses.
 */
export class FliteEngine implements TextToSpeechEngine {
  readonly name = 'flite';
  private readonly program: FliteProgram;
  private readonly pronunciations: PronunciationLookup;

  constructor(program: FliteProgram = FliteProgram.shared()) {
    this.program = program;
    this.pronunciations = new PronunciationLookup(program);
  }

  async synthesize(text: string, voice: VoiceSettings, signal?: AbortSignal): Promise<SynthesisResult> {
    const argv = synthesisArguments(voice);
    signal?.throwIfAborted();
    const words = wordsOf(text);
    const sampleRate = fliteVoices[voice.voice].sampleRate;
    if (words.length === 0) return { samples: new Int16Array(0), sampleRate, words: [] };
    const [run, pronunciations] = await Promise.all([
      this.program.run([...argv, '-psdur', '-t', text, '-o', outputFile], outputFile, { signal }),
      // Timings fall back to estimates if the lookup fails; the audio does not depend on it.
      this.pronunciations.lookup(words).catch(() => undefined),
    ]);
    signal?.throwIfAborted();
    if (run.exitCode !== 0 || !run.output) {
      throw new Error(`flite exited with code ${run.exitCode}: ${run.stderr.trim() || 'no output'}`);
    }
    const audio = parseFliteWav(run.output);
    const phones = parseSegmentDurations(run.stdout);
    const timings: WordTiming[] = pronunciations ? alignWords(words, pronunciations, phones) : estimateWords(words, phones);
    return { samples: audio.samples, sampleRate: audio.sampleRate, words: timings };
  }

  /** Starts the worker and compiles flite ahead of the first request. */
  warmUp(): Promise<void> {
    return this.program.warmUp();
  }
}

function synthesisArguments(settings: VoiceSettings): string[] {
  if (!isFliteVoice(settings.voice)) {
    throw new InvalidVoiceSettingsError(`unknown flite voice "${String(settings.voice)}"; use one of ${Object.keys(fliteVoices).join(', ')}`);
  }
  const argv = ['-voice', settings.voice];
  if (settings.rate !== undefined) {
    if (!(settings.rate >= limits.minRate && settings.rate <= limits.maxRate)) {
      throw new InvalidVoiceSettingsError(`rate must be between ${limits.minRate} and ${limits.maxRate}, got ${settings.rate}`);
    }
    argv.push('--setf', `duration_stretch=${(1 / settings.rate).toFixed(4)}`);
  }
  if (settings.pitchHz !== undefined) {
    if (!(settings.pitchHz >= limits.minPitchHz && settings.pitchHz <= limits.maxPitchHz)) {
      throw new InvalidVoiceSettingsError(
        `pitchHz must be between ${limits.minPitchHz} and ${limits.maxPitchHz}, got ${settings.pitchHz}`,
      );
    }
    argv.push('--setf', `int_f0_target_mean=${settings.pitchHz.toFixed(1)}`);
  }
  return argv;
}

/** The words of the text as reported in timings: whitespace tokens without surrounding punctuation. */
export function wordsOf(text: string): string[] {
  return text
    .split(/\s+/)
    .map((token) => token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((token) => /[\p{L}\p{N}]/u.test(token));
}
