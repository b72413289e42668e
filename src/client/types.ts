/** Wire types of the speech service (field names as on the wire; units as on the wire). */

export type TtsModel = 's1' | 's2-pro' | 's2.1-pro' | 's2.1-pro-free' | (string & {});
export type AudioFormat = 'wav' | 'pcm' | 'mp3' | 'opus';
export type Latency = 'low' | 'normal' | 'balanced';

/** An inline voice sample for zero-shot cloning (sent as msgpack `bin`). */
export interface ReferenceAudio {
  audio: Uint8Array;
  /** Exact transcript of the sample. */
  text: string;
}

export interface ProsodyControl {
  /** Speaking-rate multiplier, 0.5 to 2.0 (default 1). */
  speed?: number;
  /** Volume change in dB (default 0). */
  volume?: number;
  /** Loudness normalization, S2-Pro only (default true). */
  normalize_loudness?: boolean;
}

/** The body of `POST /v1/tts` (also the `request` of a live `start` event). Only `text` is required. */
export interface TtsRequest {
  text: string;
  /** 0 to 1 (default 0.7). */
  temperature?: number;
  /** 0 to 1 (default 0.7). */
  top_p?: number;
  /** Inline references; an array of arrays for zero-shot multi-speaker. Forces msgpack. */
  references?: ReferenceAudio[] | ReferenceAudio[][] | null;
  /** Voice model id, or one id per speaker. */
  reference_id?: string | string[] | null;
  prosody?: ProsodyControl | null;
  /** 100 to 300 (default 300). */
  chunk_length?: number;
  /** Text normalization for English and Chinese (default true). */
  normalize?: boolean;
  /** Default `mp3`. */
  format?: AudioFormat;
  /** Hz; null means the format default. */
  sample_rate?: number | null;
  mp3_bitrate?: 64 | 128 | 192;
  /** bps (-1000 automatic); kbps values are accepted by the hosted service too. */
  opus_bitrate?: -1000 | 24000 | 32000 | 48000 | 64000 | 24 | 32 | 48 | 64;
  latency?: Latency;
  /** Maximum audio tokens per text chunk (default 1024). */
  max_new_tokens?: number;
  /** Default 1.2. */
  repetition_penalty?: number;
  /** 0 to 100 (default 50). */
  min_chunk_length?: number;
  /** Default true. */
  condition_on_previous_chunks?: boolean;
  /** 0 to 1 (default 1). */
  early_stop_threshold?: number;
  /** Request-scoped feature flags such as `quality-guard`. */
  features?: string[];
}

/** One word of a timestamp alignment, seconds relative to its chunk. */
export interface AlignmentSegment {
  text: string;
  start: number;
  end: number;
}

export interface Alignment {
  segments: AlignmentSegment[];
  audio_duration?: number;
}

export interface TranscriptionSegment {
  text: string;
  /** Seconds. */
  start: number;
  /** Seconds. */
  end: number;
}

export interface Transcription {
  text: string;
  /** Seconds. */
  duration: number;
  segments: TranscriptionSegment[];
  language?: string;
  /**
   * Shoal extension, when `hints` were sent to a Shoal service: false when the words came out as open
   * vocabulary, outside the hints (the hosted service never sets it).
   */
  expected?: boolean;
  /**
   * Shoal extension: what the request was billed, in credits (the `Shoal-Charge` header; pieces of a split
   * file summed). Absent when the service reports no charge (the hosted service, or billing off).
   */
  charge?: number;
}

export interface VoiceDesignRequest {
  /** 1 to 2000 characters. */
  instruction: string;
  /** Preview text, at most 150 characters. */
  reference_text?: string;
  language?: string;
  /** 1 to 4 candidates. */
  n?: number;
  /** At most 3. */
  speed?: number;
  /** 1 to 128 diffusion steps. */
  num_step?: number;
  guidance_scale?: number;
  instruct_guidance_scale?: number;
  seed?: number;
}

export type { VoiceDesignCandidate } from '../speech/index.js';

export interface ModelAuthor {
  _id: string;
  nickname: string;
  avatar: string;
}

export interface QualityAudio {
  filename: string;
  duration_ms: number;
  language: string;
  quality: Record<string, unknown>;
  quality_passed: boolean;
  quality_reason: string;
}

export interface VoiceModel {
  _id: string;
  type: 'svc' | 'tts';
  title: string;
  state: 'created' | 'training' | 'trained' | 'failed';
  tags: string[];
  created_at: string;
  updated_at: string;
  visibility: 'public' | 'unlist' | 'private';
  like_count: number;
  mark_count: number;
  shared_count: number;
  task_count: number;
  author: ModelAuthor;
  description?: string;
  cover_image?: string;
  train_mode?: 'fast' | 'full';
  samples?: Record<string, unknown>[];
  languages?: string[];
  lock_visibility?: boolean;
  dmca_taken_down?: boolean | null;
  default_text?: string;
  source?: string | null;
  quality?: { created_at: string; updated_at: string; audios: QualityAudio[] } | null;
  unliked?: boolean;
  liked?: boolean;
  marked?: boolean;
}

export interface ModelList {
  total: number;
  items: VoiceModel[];
  has_more?: boolean | null;
}

export interface UserPackage {
  user_id: string;
  type: string;
  total: number;
  balance: number;
  created_at: string;
  updated_at: string;
  finished_at: string;
  payments_subscription_id?: string;
  payments_price_id?: string;
  billing_period?: string;
  current_period_end?: string;
  cancel_at_period_end?: boolean;
  cancel_at?: string;
  scheduled_change?: Record<string, unknown>;
  last_synced_at?: string;
  subscription_currency?: string;
  extra_balance?: number;
  has_used_trial?: boolean;
}

export interface ApiCredit {
  _id: string;
  user_id: string;
  credit: string;
  created_at: string;
  updated_at: string;
  has_phone_sha256: boolean;
  has_free_credit?: boolean | null;
}
