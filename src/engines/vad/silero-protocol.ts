export interface SileroWorkerData {
  modelPath: string;
}

/**
 * Silero v5 steps of `count` detectors at once: each detector's 64 samples of context + 512-sample frame (scaled
 * to -1..1) one after another in `input` ([count, 576]), their states in `state` ([2, count, 128]).
 */
export type SileroRequest = { seq: number; op: 'load' } | { seq: number; op: 'infer'; count: number; input: Float32Array; state: Float32Array };

export type SileroReply =
  | { seq: number; ok: true; probabilities?: Float32Array; state?: Float32Array }
  | { seq: number; ok: false; message: string; unavailable: boolean };
