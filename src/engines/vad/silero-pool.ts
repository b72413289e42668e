import { countFromEnv, EnginePool, machineWorkers, type PinnedWorker } from '../pool/index.js';
import { startModuleWorker } from '../module-worker.js';
import { EngineUnavailableError } from '../types.js';
import { sileroModelPath, type SileroStep } from './silero-session.js';
import type { SileroBatch, SileroReply, SileroRequest } from './silero-protocol.js';

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
  /** The window timer's time when it was handed over. */
  sinceMs: number;
  resolve(step: SileroStep): void;
  reject(error: unknown): void;
}

/** The steps waiting for one worker, how many detectors are pinned to it, and whether a batch is there or due. */
interface Lane {
  worker: Worker;
  waiting: Step[];
  detectors: number;
  busy: boolean;
  due: boolean;
}

/** The time the batch window is measured on: the wall clock by default; a test's own clock makes windows exact. */
export interface WindowTimer {
  now(): number;
  /** Runs `run` once `ms` have passed on this timer. */
  after(ms: number, run: () => void): void;
}

export const wallTimer: WindowTimer = {
  now: () => performance.now(),
  after: (ms, run) => void setTimeout(run, ms),
};

/** Most detectors' steps in one hand-off (env SHOAL_VAD_MAX_BATCH; 1: one inference per frame, at once). */
export const maxBatch = countFromEnv(process.env, 'SHOAL_VAD_MAX_BATCH') ?? 256;
/** How long a step may wait for other calls' steps to join its hand-off, ms (env SHOAL_VAD_BATCH_WINDOW_MS). */
export const batchWindowMs = countFromEnv(process.env, 'SHOAL_VAD_BATCH_WINDOW_MS') ?? 10;

/**
 * Silero VAD off the event loop, batched across calls. The steps of every detector pinned to a worker go to it
 * together: one message per window (`batchWindowMs` from the oldest waiting step, or when the batch in flight
 * returns, whichever is later) carrying one inference per sample rate ([N, 576] inputs at 16 kHz, [N, 288] at
 * 8 kHz, [2, N, 128] states). A batch costs far less per frame than one inference each (0.47 ms of CPU for one
 * frame, 0.12 ms per frame in a batch of 50, measured here), and one message per window costs the event loop
 * less than one per frame. A worker's only detector does not wait for a window. One worker per 2 cores; a
 * detector is pinned to the worker with the fewest, and has at most one step waiting (its steps are chained).
 */
export class SileroPool {
  private static instance: SileroPool | undefined;
  private readonly pool: EnginePool<Body, SileroReply>;
  private readonly lanes = new Map<number, Lane>();
  /**
   * Messages to the workers, inferences they ran, detector steps those carried (`steps / inferences` is the
   * mean batch) and the largest batch.
   */
  readonly counts = { messages: 0, inferences: 0, steps: 0, largest: 0 };

  constructor(
    modelPath = sileroModelPath(),
    size = machineWorkers(process.env, 2),
    private readonly batchLimit = maxBatch,
    private readonly windowMs = batchWindowMs,
    private readonly timer: WindowTimer = wallTimer,
  ) {
    this.pool = new EnginePool(() => startModuleWorker(import.meta.url, 'silero-worker', { modelPath }), { name: 'silero-vad', size });
  }

  static shared(): SileroPool {
    SileroPool.instance ??= new SileroPool();
    return SileroPool.instance;
  }

  channel(): SileroChannel {
    const worker = this.pool.pin();
    const lane = this.laneOf(worker);
    lane.detectors++;
    const ready = this.check(worker.run({ op: 'load' }));
    let released = false;
    return {
      ready,
      run: (input, state, sampleRate = 16000) =>
        new Promise<SileroStep>((resolve, reject) => {
          lane.waiting.push({ input, state, sampleRate, sinceMs: this.timer.now(), resolve, reject });
          this.schedule(lane);
        }),
      release: () => {
        if (released) return;
        released = true;
        lane.detectors--;
        worker.release();
      },
    };
  }

  /** Stops the workers; the next detector starts them again. */
  stop(): Promise<void> {
    return this.pool.stop();
  }

  private laneOf(worker: Worker): Lane {
    let lane = this.lanes.get(worker.index);
    if (!lane) this.lanes.set(worker.index, (lane = { worker, waiting: [], detectors: 0, busy: false, due: false }));
    lane.worker = worker;
    return lane;
  }

  private schedule(lane: Lane): void {
    if (lane.busy || lane.due || lane.waiting.length === 0) return;
    lane.due = true;
    const go = () => {
      lane.due = false;
      void this.send(lane);
    };
    if (lane.detectors <= 1 || this.batchLimit <= 1) {
      setImmediate(go);
      return;
    }
    const waitMs = lane.waiting[0]!.sinceMs + this.windowMs - this.timer.now();
    if (waitMs <= 0) setImmediate(go);
    else this.timer.after(waitMs, go);
  }

  private async send(lane: Lane): Promise<void> {
    if (lane.busy || lane.waiting.length === 0) return;
    lane.busy = true;
    const steps = lane.waiting.splice(0, this.batchLimit);
    const byRate = new Map<number, Step[]>();
    for (const step of steps) {
      const group = byRate.get(step.sampleRate);
      if (group) group.push(step);
      else byRate.set(step.sampleRate, [step]);
    }
    const groups = [...byRate.values()];
    const batches = groups.map((group) => this.pack(group));
    this.counts.messages++;
    try {
      const reply = await this.check(
        lane.worker.run({ op: 'infer', batches }, { transfer: batches.flatMap((b) => [b.input.buffer as ArrayBuffer, b.state.buffer as ArrayBuffer]) }),
      );
      groups.forEach((group, g) => {
        const { probabilities, state } = reply.results![g]!;
        const count = group.length;
        group.forEach((step, i) => {
          const own = new Float32Array(2 * stateSamples);
          own.set(state.subarray(i * stateSamples, (i + 1) * stateSamples));
          own.set(state.subarray((count + i) * stateSamples, (count + i + 1) * stateSamples), stateSamples);
          step.resolve({ probability: probabilities[i]!, state: own });
        });
      });
    } catch (error) {
      for (const step of steps) step.reject(error);
    } finally {
      lane.busy = false;
      this.schedule(lane);
    }
  }

  /** One inference's inputs ([count, context + frame]) and states ([2, count, 128]) from steps at one rate. */
  private pack(steps: Step[]): SileroBatch {
    const count = steps.length;
    this.counts.inferences++;
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
    return { sampleRate: steps[0]!.sampleRate, count, input, state };
  }

  private async check(pending: Promise<SileroReply>): Promise<Extract<SileroReply, { ok: true }>> {
    const reply = await pending;
    if (reply.ok) return reply;
    if (reply.unavailable) throw new EngineUnavailableError('silero-vad', reply.message);
    throw new Error(`silero-vad: ${reply.message}`);
  }
}
