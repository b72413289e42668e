export interface FliteWorkerData {
  wasmPath: string;
}

export interface FliteRequest {
  seq: number;
  argv: string[];
  /** A file the program writes whose bytes should come back. */
  outputFile?: string;
}

export type FliteReply =
  | { seq: number; ok: true; exitCode: number; stdout: string; stderr: string; output?: Uint8Array; runMs: number }
  | { seq: number; ok: false; message: string };
