import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { decodeAudio, parseWav, resample } from '../audio/index.js';
import { SpeechClientError, type SpeechClient } from '../client/index.js';
import { unsampledTraceparent } from '../tracing/index.js';

/** What the caller says or plays in one step, at the line's rate. */
export interface Clip {
  samples: Int16Array;
  /** Where the last voiced sample ends, ms from the clip's start. */
  voiceEndMs: number;
  /** RMS of the clip's voiced frames (the speech level noise is set against). */
  speechRms: number;
}

/** A clip that could not be made: an unreadable recording, a voice the service does not know. */
export class CallerAudioError extends Error {
  override readonly name = 'CallerAudioError';
}

/**
 * Makes the caller's clips: `say` text synthesised by the speech service in the caller's voice, `play` files
 * decoded and resampled to the line. Synthesis is cached per voice and text, for the runner's life.
 */
export class CallerVoice {
  private readonly cache = new Map<string, Promise<{ samples: Int16Array; sampleRate: number }>>();

  constructor(private readonly client: SpeechClient) {}

  async say(text: string, voice: string, lineRate: number): Promise<Clip> {
    const key = `${voice}\n${text}`;
    let speech = this.cache.get(key);
    if (!speech) {
      speech = this.synthesise(text, voice);
      this.cache.set(key, speech);
      speech.catch(() => this.cache.delete(key));
    }
    const { samples, sampleRate } = await speech;
    return clipOf(await toRate(samples, sampleRate, lineRate), lineRate);
  }

  async play(path: string, dir: string, lineRate: number): Promise<Clip> {
    const file = resolve(dir, path);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch (error) {
      throw new CallerAudioError(`cannot read play: ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    const decoded = await decodeAudio(bytes).catch((error: unknown) => {
      throw new CallerAudioError(`cannot decode play: ${path}: ${error instanceof Error ? error.message : String(error)}`);
    });
    return clipOf(await toRate(decoded.samples, decoded.sampleRate, lineRate), lineRate);
  }

  private async synthesise(text: string, voice: string): Promise<{ samples: Int16Array; sampleRate: number }> {
    for (let attempt = 1; ; attempt++) {
      try {
        // Under an unsampled trace: the caller's voice is no part of the call under test.
        const wav = await this.client.tts({ text, format: 'wav', sample_rate: 16000, reference_id: voice }, { traceparent: unsampledTraceparent() }).collect();
        const parsed = parseWav(wav);
        return { samples: parsed.samples, sampleRate: parsed.sampleRate };
      } catch (error) {
        // The service refuses syntheses beyond its limit while calls run at once (--concurrency): wait for a place.
        const busy = error instanceof SpeechClientError && (error.status === 429 || error.status === 503);
        if (busy && attempt < synthesisAttempts) {
          await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
          continue;
        }
        throw new CallerAudioError(`cannot synthesise "${text}" in voice ${voice}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

async function toRate(samples: Int16Array, from: number, to: number): Promise<Int16Array> {
  return from === to ? samples : resample(samples, from, to);
}

const synthesisAttempts = 6;

/** Frames of 10 ms louder than this share of the loudest frame count as voice. */
const voicedShare = 1 / 30;

export function clipOf(samples: Int16Array, sampleRate: number): Clip {
  const window = Math.max(1, Math.round(sampleRate / 100));
  const levels: number[] = [];
  for (let offset = 0; offset < samples.length; offset += window) {
    let sum = 0;
    const end = Math.min(samples.length, offset + window);
    for (let i = offset; i < end; i++) sum += samples[i]! * samples[i]!;
    levels.push(Math.sqrt(sum / Math.max(1, end - offset)));
  }
  const loudest = Math.max(0, ...levels);
  const threshold = Math.max(loudest * voicedShare, 30);
  let lastVoiced = -1;
  let voicedSum = 0;
  let voicedCount = 0;
  levels.forEach((level, index) => {
    if (level < threshold) return;
    lastVoiced = index;
    voicedSum += level * level;
    voicedCount++;
  });
  return {
    samples,
    voiceEndMs: lastVoiced < 0 ? 0 : Math.min((samples.length * 1000) / sampleRate, ((lastVoiced + 1) * window * 1000) / sampleRate),
    speechRms: voicedCount > 0 ? Math.sqrt(voicedSum / voicedCount) : 0,
  };
}
