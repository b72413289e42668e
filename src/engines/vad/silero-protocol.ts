export interface SileroWorkerData {
  modelPath: string;
}

/** One Silero v5 step: 64 samples of context + a 512-sample frame (scaled to -1..1) and the detector's state. */
export type SileroRequest = { seq: number; op: 'load' } | { seq: number; op: 'infer'; input: Float32Array; state: Float32Array };

export type SileroReply =
  | { seq: number; ok: true; probability?: number; state?: Float32Array }
  | { seq: number; ok: false; message: string; unavailable: boolean };
