import type { EncoderOptions } from '../../audio/index.js';
import type { VoiceSettings } from '../types.js';

/** Work the media workers do: streaming encoders (kept per stream in one worker), decoding and voice analysis. */
export type MediaRequest =
  | { op: 'open'; stream: number; options: EncoderOptions }
  | { op: 'write'; stream: number; pcm: Int16Array }
  | { op: 'end'; stream: number }
  | { op: 'close'; stream: number }
  /** Decodes an audio file (bytes, or a path the worker reads); `sampleRate` resamples it, `keepSource` also returns the samples at the file's rate. */
  | { op: 'decode'; file: Uint8Array | string; sampleRate?: number; keepSource?: boolean }
  /** Decodes each file, resamples to 16 kHz, joins them and picks the nearest engine voice. */
  | { op: 'voice'; files: Uint8Array[] }
  /** The nearest engine voice to 16 kHz samples already decoded. */
  | { op: 'voice-pcm'; pcm16k: Int16Array };

export type MediaReply = { seq: number } & (
  | { ok: true; op: 'open'; sampleRate: number; inputSampleRate: number; contentType: string }
  | { ok: true; op: 'bytes'; bytes: Uint8Array }
  | { ok: true; op: 'decode'; samples: Int16Array; sampleRate: number; durationMs: number; source?: { samples: Int16Array; sampleRate: number } }
  | { ok: true; op: 'voice'; voice: VoiceSettings }
  | { ok: false; name: string; message: string; status?: number; index?: number }
);
