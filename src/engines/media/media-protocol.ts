import type { EncoderOptions, SampleMeasures } from '../../audio/index.js';
import type { VoiceSettings } from '../types.js';

/** Work the media workers do: streaming encoders (kept per stream in one worker), decoding and voice analysis. */
export type MediaRequest =
  | { op: 'open'; stream: number; options: EncoderOptions }
  | { op: 'write'; stream: number; pcm: Int16Array }
  | { op: 'end'; stream: number }
  | { op: 'close'; stream: number }
  /** Decodes an audio file (bytes, or a path the worker reads); `sampleRate` resamples it. Longer than `maxDurationMs`: refused before it is held. */
  | { op: 'decode'; file: Uint8Array | string; sampleRate?: number; maxDurationMs: number }
  /** Prepares an uploaded voice sample: decodes it, measures it, optionally enhances it; the WAV to store and its 16 kHz samples. */
  | { op: 'prepare-sample'; file: Uint8Array | string; enhance: boolean; maxDurationMs: number }
  /** Decodes each file, resamples to 16 kHz, joins them and picks the nearest engine voice. */
  | { op: 'voice'; files: Uint8Array[]; maxDurationMs: number }
  /** The nearest engine voice to 16 kHz samples already decoded. */
  | { op: 'voice-pcm'; pcm16k: Int16Array };

export type MediaReply = { seq: number } & (
  | { ok: true; op: 'open'; sampleRate: number; inputSampleRate: number; contentType: string }
  | { ok: true; op: 'bytes'; bytes: Uint8Array }
  | { ok: true; op: 'decode'; samples: Int16Array; sampleRate: number; sourceRate: number; durationMs: number }
  | { ok: true; op: 'voice'; voice: VoiceSettings }
  | { ok: true; op: 'sample'; measures: SampleMeasures; wav: Uint8Array; pcm16k: Int16Array }
  | { ok: false; name: string; message: string; status?: number; index?: number; tooLong?: { durationMs: number; limitMs: number; exact: boolean } }
);
