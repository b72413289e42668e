import { z } from 'zod';

/** Inline voice sample for zero-shot voice matching (MessagePack bodies only: `audio` is raw bytes). */
const referenceAudio = z.object({
  audio: z.instanceof(Uint8Array, { error: 'audio must be raw bytes (MessagePack bin); inline references need application/msgpack' }),
  text: z.string({ error: 'text must be a string: the transcript of the reference audio' }),
});

const unitInterval = (field: string, fallback: number) =>
  z
    .number({ error: `${field} must be a number from 0 to 1` })
    .min(0, { error: `${field} must be in [0, 1]` })
    .max(1, { error: `${field} must be in [0, 1]` })
    .default(fallback);

const prosody = z.object({
  speed: z
    .number({ error: 'speed must be a number' })
    .min(0.5, { error: 'speed must be in [0.5, 2.0]' })
    .max(2, { error: 'speed must be in [0.5, 2.0]' })
    .default(1),
  volume: z
    .number({ error: 'volume must be a number of dB' })
    .min(-60, { error: 'volume must be in [-60, 30] dB' })
    .max(30, { error: 'volume must be in [-60, 30] dB' })
    .default(0),
  normalize_loudness: z.boolean({ error: 'normalize_loudness must be true or false' }).default(true),
});

/** The opus bitrates of the interface, in bps; kbps values (24, 32, 48, 64) are accepted and scaled. */
export const opusBitrates = [-1000, 24000, 32000, 48000, 64000] as const;

/**
 * TTSRequest as in the interface description, with its defaults and ranges. `text` presence is checked
 * before this schema (a missing text is a 400 `missing field text`). Unknown fields are ignored.
 */
export const ttsRequestSchema = z.object({
  text: z.string({ error: 'text must be a string' }),
  temperature: unitInterval('temperature', 0.7),
  top_p: unitInterval('top_p', 0.7),
  references: z.union([z.array(referenceAudio), z.array(z.array(referenceAudio))]).nullish(),
  reference_id: z
    .union([z.string(), z.array(z.string())], { error: 'reference_id must be a string or an array of strings' })
    .nullish(),
  prosody: prosody.nullish(),
  chunk_length: z
    .int({ error: 'chunk_length must be an integer' })
    .min(100, { error: 'chunk_length must be in [100, 300]' })
    .max(300, { error: 'chunk_length must be in [100, 300]' })
    .default(300),
  normalize: z.boolean({ error: 'normalize must be true or false' }).default(true),
  format: z.enum(['wav', 'pcm', 'mp3', 'opus'], { error: 'format must be one of wav, pcm, mp3, opus' }).default('mp3'),
  sample_rate: z.int({ error: 'sample_rate must be an integer number of Hz, or null' }).nullish(),
  mp3_bitrate: z.literal([64, 128, 192], { error: 'mp3_bitrate must be 64, 128 or 192 (kbps)' }).default(128),
  opus_bitrate: z
    .literal([...opusBitrates, 24, 32, 48, 64], {
      error: 'opus_bitrate must be -1000 (automatic), 24000, 32000, 48000 or 64000 bps (or 24, 32, 48, 64 kbps)',
    })
    .default(-1000)
    .transform((value) => (value > 0 && value < 1000 ? value * 1000 : value)),
  latency: z.enum(['low', 'normal', 'balanced'], { error: 'latency must be low, normal or balanced' }).default('normal'),
  max_new_tokens: z.int({ error: 'max_new_tokens must be an integer' }).min(1, { error: 'max_new_tokens must be at least 1' }).default(1024),
  repetition_penalty: z.number({ error: 'repetition_penalty must be a number' }).default(1.2),
  min_chunk_length: z
    .int({ error: 'min_chunk_length must be an integer' })
    .min(0, { error: 'min_chunk_length must be in [0, 100]' })
    .max(100, { error: 'min_chunk_length must be in [0, 100]' })
    .default(50),
  condition_on_previous_chunks: z.boolean({ error: 'condition_on_previous_chunks must be true or false' }).default(true),
  early_stop_threshold: unitInterval('early_stop_threshold', 1),
  features: z.array(z.string({ error: 'features must be strings' }), { error: 'features must be an array of strings' }).default([]),
});

export type TtsRequest = z.output<typeof ttsRequestSchema>;
export type ReferenceAudio = z.output<typeof referenceAudio>;
export type ProsodyControl = z.output<typeof prosody>;
