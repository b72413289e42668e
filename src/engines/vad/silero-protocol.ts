export interface SileroWorkerData {
  modelPath: string;
}

/**
 * Silero v5 steps of `count` detectors at once, all at `sampleRate`: each detector's context + frame (scaled to
 * -1..1; 64 + 512 samples at 16 kHz, 32 + 256 at 8 kHz) one after another in `input`, their states in `state`
 * ([2, count, 128]).
 */
export interface SileroBatch {
  sampleRate: number;
  count: number;
  input: Float32Array;
  state: Float32Array;
}

/** `infer`: one message per hand-off, one batch per sample rate; the reply's `results` are in the same order. */
export type SileroRequest = { seq: number; op: 'load' } | { seq: number; op: 'infer'; batches: SileroBatch[] };

export type SileroReply =
  | { seq: number; ok: true; results?: Array<{ probabilities: Float32Array; state: Float32Array }> }
  | { seq: number; ok: false; message: string; unavailable: boolean };
