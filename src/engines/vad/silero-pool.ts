import { countFromEnv, EnginePool, machineWorkers, type PinnedWorker } from '../pool/index.js';
import { startModuleWorker } from '../module-worker.js';
import { EngineUnavailableError } from '../types.js';
import { sileroModelPath, type SileroStep } from './silero-session.js';
import type { SileroReply, SileroRequest } from './silero-protocol.js';

type Body = SileroRequest extends infer R ? (R extends SileroRequest ? Omit<R, 'seq'> : never) : never;
type Worker = PinnedWorker<Body, SileroReply>;

/** A detector's handle on its VAD worker: steps run there in order and are never refused (the call was admitted). */
export interface SileroChannel {
  readonly ready: Promise<unknown>;
  run(input: Float32Array, state: Float32Array, sampleRate?: number): Promise<SileroStep>;
  release(): void;
}

const stateSamples = 128;

interface Step {
  input: Float32Array;
  state: Float32Array;
  sampleRate: number;
  worker: Worker;
  resolve(step: SileroStep): void;
  reject(error: unknown): void;
}

/** The steps waiting for one worker, and whether a batch of them is there now. */
interface Lane {
  waiting: Step[];
  busy: boolean;
}

/** Most detectors' steps in one inference (env SHOAL_VAD_MAX_BATCH; 1: one inference per frame). */
export const maxBatch = countFromEnv(process.env, 'SHOAL_VAD_MAX_BATCH') ?? 256;

/**
 * Silero VAD off the event loop, batched across calls: the steps of every detector pinned to a worker that are
 * waiting when it is free go to it as one inference per sample rate ([N, 576] inputs at 16 kHz, [N, 288] at
 * 8 kHz, [2, N, 128] states), which costs far less
 * per frame than one inference each (0.47 ms of CPU for one frame, 0.12 ms per frame in a batch of 50, measured
 * here). A step waits at most for the batch in flight. One worker per 2 cores; a detector is pinned to the
 * worker with the fewest, and has at most one step waiting (its steps are chained).
 */
export class SileroPool {
  private static instance: SileroPool | undefined;
  private readonly pool: EnginePool<Body, SileroReply>;
  private readonly lanes = new Map<number, Lane>();
  /** Inferences run, detector steps they carried (`steps / batches` is the mean batch) and the largest batch. */
  readonly counts = { batches: 0, steps: 0, largest: 0 };

  constructor(modelPath = sileroModelPath(), size = machineWorkers(process.env, 2), private readonly batchLimit = maxBatch) {
    this.pool = new EnginePool(() => startModuleWorker(import.meta.url, 'silero-worker', { modelPath }), { name: 'silero-vad', size });
  }

  static shared(): SileroPool {
    SileroPool.instance ??= new SileroPool();
    return SileroPool.instance;
  }

  channel(): SileroChannel {
    const worker = this.pool.pin();
    const ready = this.check(worker.run({ op: 'load' }));
    return {
      ready,
      run: (input, state, sampleRate = 16000) =>
        new Promise<SileroStep>((resolve, reject) => {
          const lane = this.laneOf(worker.index);
          lane.waiting.push({ input, state, sampleRate, worker, resolve, reject });
          // Steps that arrive in the same turn of the event loop (other calls' frames) join this one's batch.
          if (!lane.busy && lane.waiting.length === 1) setImmediate(() => void this.send(lane));
        }),
      release: () => worker.release(),
    };
  }

  /** Stops the workers; the next detector starts them again. */
  stop(): Promise<void> {
    return this.pool.stop();
  }

  private laneOf(index: number): Lane {
    let lane = this.lanes.get(index);
    if (!lane) this.lanes.set(index, (lane = { waiting: [], busy: false }));
    return lane;
  }

  private async send(lane: Lane): Promise<void> {
    if (lane.busy || lane.waiting.length === 0) return;
    lane.busy = true;
    // One inference per sample rate: the steps at the first waiting step's rate; the others wait for the next.
    const sampleRate = lane.waiting[0]!.sampleRate;
    const steps: Step[] = [];
    const rest: Step[] = [];
    for (const step of lane.waiting) (step.sampleRate === sampleRate && steps.length < this.batchLimit ? steps : rest).push(step);
    lane.waiting = rest;
    const count = steps.length;
    this.counts.batches++;
    this.counts.steps += count;
    this.counts.largest = Math.max(this.counts.largest, count);
    const inputSamples = steps[0]!.input.length;
    const input = new Float32Array(count * inputSamples);
    const state = new Float32Array(2 * count * stateSamples);
    steps.forEach((step, i) => {
      input.set(step.input, i * inputSamples);
      state.set(step.state.subarray(0, stateSamples), i * stateSamples);
      state.set(step.state.subarray(stateSamples), (count + i) * stateSamples);
    });
    try {
      const reply = await this.check(steps[0]!.worker.run({ op: 'infer', sampleRate, count, input, state }, { transfer: [input.buffer, state.buffer] }));
      const states = reply.state!;
      steps.forEach((step, i) => {
        const own = new Float32Array(2 * stateSamples);
        own.set(states.subarray(i * stateSamples, (i + 1) * stateSamples));
        own.set(states.subarray((count + i) * stateSamples, (count + i + 1) * stateSamples), stateSamples);
        step.resolve({ probability: reply.probabilities![i]!, state: own });
      });
    } catch (error) {
      for (const step of steps) step.reject(error);
    } finally {
      lane.busy = false;
      void this.send(lane);
    }
  }

  private async check(pending: Promise<SileroReply>): Promise<Extract<SileroReply, { ok: true }>> {
    const reply = await pending;
    if (reply.ok) return reply;
    if (reply.unavailable) throw new EngineUnavailableError('silero-vad', reply.message);
    throw new Error(`silero-vad: ${reply.message}`);
  }
}
