import { UnsupportedAudioSettingError } from './errors.js';
import { OPUS_AUTO_BITRATE } from './opus-encoder.js';

/** Output formats of the speech service (docs/service-api.md, audio formats). */
export type AudioFormat = 'wav' | 'pcm' | 'mp3' | 'opus';

export const AUDIO_FORMATS: readonly AudioFormat[] = ['wav', 'pcm', 'mp3', 'opus'];

export interface FormatSpec {
  sampleRates: readonly number[];
  defaultSampleRate: number;
  contentType: string;
}

export const FORMAT_SPECS: Readonly<Record<AudioFormat, FormatSpec>> = {
  wav: { sampleRates: [8000, 16000, 24000, 32000, 44100], defaultSampleRate: 44100, contentType: 'audio/wav' },
  pcm: { sampleRates: [8000, 16000, 24000, 32000, 44100], defaultSampleRate: 44100, contentType: 'application/octet-stream' },
  mp3: { sampleRates: [32000, 44100], defaultSampleRate: 44100, contentType: 'audio/mpeg' },
  opus: { sampleRates: [48000], defaultSampleRate: 48000, contentType: 'audio/ogg' },
};

export const MP3_BITRATES_KBPS = [64, 128, 192] as const;
export const DEFAULT_MP3_BITRATE_KBPS = 128;
/** Opus bitrates the service names, in bps; kbps spellings (24, 32, ...) and any rate between 24 and 64 kbps are accepted too. */
export const OPUS_BITRATES = [OPUS_AUTO_BITRATE, 24000, 32000, 48000, 64000] as const;
export const DEFAULT_OPUS_BITRATE = OPUS_AUTO_BITRATE;

export function isAudioFormat(value: unknown): value is AudioFormat {
  return typeof value === 'string' && (AUDIO_FORMATS as readonly string[]).includes(value);
}

/** Returns the sample rate to use for a format (its default when none is given), or throws naming the supported rates. */
export function checkSampleRate(format: AudioFormat, sampleRate: number | null | undefined): number {
  const spec = FORMAT_SPECS[format];
  if (sampleRate === undefined || sampleRate === null) return spec.defaultSampleRate;
  if (!spec.sampleRates.includes(sampleRate)) {
    throw new UnsupportedAudioSettingError(
      `Invalid sample rate ${sampleRate} for format ${format}. Supported: ${spec.sampleRates.join(', ')}`,
    );
  }
  return sampleRate;
}

export function checkMp3Bitrate(kbps: number | null | undefined): number {
  if (kbps === undefined || kbps === null) return DEFAULT_MP3_BITRATE_KBPS;
  if (!(MP3_BITRATES_KBPS as readonly number[]).includes(kbps)) {
    throw new UnsupportedAudioSettingError(`Invalid mp3 bitrate ${kbps}. Supported: ${MP3_BITRATES_KBPS.join(', ')} kbps`);
  }
  return kbps;
}

/** Normalises an Opus bitrate given in bps or kbps to bps (or -1000 for automatic), or throws naming the accepted values. */
export function checkOpusBitrate(value: number | null | undefined): number {
  if (value === undefined || value === null) return DEFAULT_OPUS_BITRATE;
  if (value === OPUS_AUTO_BITRATE) return value;
  const bps = value < 1000 ? value * 1000 : value;
  if (!Number.isInteger(bps) || bps < 24000 || bps > 64000) {
    throw new UnsupportedAudioSettingError(
      `Invalid opus bitrate ${value}. Supported: -1000 (auto), 24000, 32000, 48000, 64000 bps (or 24, 32, 48, 64 kbps)`,
    );
  }
  return bps;
}
