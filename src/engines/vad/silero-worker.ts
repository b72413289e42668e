/** Worker thread running Silero VAD inference for many detectors, one hand-off at a time: their state travels with each frame. */
import { parentPort, workerData } from 'node:worker_threads';
import { MissingPackageError } from '../../optional/index.js';
import { EngineUnavailableError } from '../types.js';
import { sileroInference } from './silero-session.js';
import type { SileroReply, SileroRequest, SileroWorkerData } from './silero-protocol.js';

const { modelPath } = workerData as SileroWorkerData;
let infer: ReturnType<typeof sileroInference> | undefined;

parentPort!.on('message', async (request: SileroRequest) => {
  let reply: SileroReply;
  const transfer: ArrayBuffer[] = [];
  try {
    infer ??= sileroInference(modelPath);
    if (request.op === 'load') {
      await infer.ready;
      reply = { seq: request.seq, ok: true };
    } else {
      const results = [];
      for (const batch of request.batches) {
        const { probabilities, state } = await infer.runBatch(batch.input, batch.state, batch.count, batch.sampleRate);
        for (const buffer of [probabilities.buffer, state.buffer] as ArrayBuffer[]) if (!transfer.includes(buffer)) transfer.push(buffer);
        results.push({ probabilities, state });
      }
      reply = { seq: request.seq, ok: true, results };
    }
  } catch (error) {
    const unavailable = error instanceof EngineUnavailableError || error instanceof MissingPackageError;
    reply = { seq: request.seq, ok: false, message: (error as Error).message, unavailable };
  }
  parentPort!.postMessage(reply, transfer);
});
