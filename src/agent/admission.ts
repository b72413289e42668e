import { availableParallelism } from 'node:os';
import { BehaviorSubject, Subject, filter, firstValueFrom, race, timer } from 'rxjs';

/** Where a call's speech engines run: `embedded` (recognition in this process) or `hosted` (a speech service's). */
export type CallEngines = 'embedded' | 'hosted';

/** How many calls one process takes. */
export interface AdmissionOptions {
  /** Calls admitted at once; default: `capacityFor(cores, callCpuMsPerSecond[engines])`. */
  maxCalls: number;
  /** The engines the calls use, which decide what a call costs; default `embedded`. */
  engines: CallEngines;
}

/**
 * CPU one call of the embedded stack costs the process, in ms per second of call: bench/capacity.ts
 * `cpu_ms_per_call_second` at 1 call, 225-256 on 2 cores (docs/measurements.md); recognition about
 * three quarters of it, the event loop (VAD, RxJS, live TTS socket) most of the rest.
 */
export const embeddedCallCpuMsPerSecond = 240;

/**
 * Event-loop CPU one phone call costs when recognition and synthesis are a speech service's (`--service-url`), in
 * ms per second of call, near the limit: bench/hosted-density.ts `loop_cpu_ms_per_call_second` (the main thread's
 * CPU from /proc) was 7.9-8.8 at 100-125 calls on a quiet 2-core machine, 8.5-12.4 at 50 (batches of VAD frames
 * are fuller with more calls). The whole process costs more (13-15 ms at 50 calls, the VAD worker thread most of
 * the rest), but the event loop is the one thread all calls share: up to 110 calls every turn was answered within
 * 1.1x of one call's reply p95; at 125, with the loop saturated, turns went unanswered (docs/capacity.md).
 */
export const hostedCallCpuMsPerSecond = 8;

/** CPU per second of call by engines, in ms, on the cores that limit them: what the default capacity is derived from. */
export const callCpuMsPerSecond: Record<CallEngines, number> = { embedded: embeddedCallCpuMsPerSecond, hosted: hostedCallCpuMsPerSecond };

/**
 * Cores one process's calls can use. The embedded recognizer runs on a worker per core; with hosted engines the
 * limit is the event loop, one core, so more cores take more processes, not more calls.
 */
export const usableCores: Record<CallEngines, number> = { embedded: Infinity, hosted: 1 };

/**
 * Share of those cores the calls may use at full capacity; the rest absorbs moments when every caller speaks.
 * Embedded calls decode in bursts of recognition (70 %); a hosted call's event-loop work is small and even, and
 * 110 calls held with the loop about 90 % busy (80 %).
 */
export const cpuShareForCalls: Record<CallEngines, number> = { embedded: 0.7, hosted: 0.8 };

/** Default capacity: floor(cores × 1000 ms × share ÷ CPU ms per call-second), at least 1 (2 cores: 5 calls). */
export function capacityFor(cores: number, cpuMsPerCallSecond = embeddedCallCpuMsPerSecond, share = cpuShareForCalls.embedded): number {
  return Math.max(1, Math.floor((cores * 1000 * share) / cpuMsPerCallSecond));
}

/** Default capacity for calls on `engines` on this machine's cores. */
export function defaultMaxCalls(engines: CallEngines, cores = availableParallelism()): number {
  return capacityFor(Math.min(cores, usableCores[engines]), callCpuMsPerSecond[engines], cpuShareForCalls[engines]);
}

export const defaults: AdmissionOptions = { maxCalls: defaultMaxCalls('embedded'), engines: 'embedded' };

/** A call that was let in; `release()` at hangup (more calls are harmless). */
export interface AdmittedCall {
  release(): void;
}

export type AdmissionDecision = 'accepted' | 'refused';

/**
 * Knows how many calls this process runs and how many it can take. `admit()` answers at once: a slot, or
 * `undefined` when full or draining, so a caller beyond capacity is turned away without touching the calls
 * in progress. `drain()` stops admitting and waits (bounded) for the calls in progress to end.
 */
export class CallAdmission {
  readonly capacity: number;
  readonly engines: CallEngines;
  private readonly active$ = new BehaviorSubject(0);
  private readonly decisions = new Subject<AdmissionDecision>();
  /** Each admission decision as it is made (for counters). */
  readonly decisions$ = this.decisions.asObservable();
  private isDraining = false;

  constructor(options: Partial<AdmissionOptions> = {}) {
    this.engines = options.engines ?? defaults.engines;
    const maxCalls = options.maxCalls ?? defaultMaxCalls(this.engines);
    if (!Number.isInteger(maxCalls) || maxCalls < 1) throw new RangeError(`maxCalls must be a positive integer, got ${maxCalls}`);
    this.capacity = maxCalls;
  }

  /** CPU per second of call the default capacity assumes for these engines, ms. */
  get callCpuMsPerSecond(): number {
    return callCpuMsPerSecond[this.engines];
  }

  get active(): number {
    return this.active$.value;
  }

  get draining(): boolean {
    return this.isDraining;
  }

  /** Share of the capacity in use, 0..1 (1 while draining: take no more calls here). */
  load(): number {
    return this.isDraining ? 1 : Math.min(1, this.active / this.capacity);
  }

  /** True while a call would be admitted. */
  get ready(): boolean {
    return !this.isDraining && this.active < this.capacity;
  }

  admit(): AdmittedCall | undefined {
    if (!this.ready) {
      this.decisions.next('refused');
      return undefined;
    }
    this.active$.next(this.active + 1);
    this.decisions.next('accepted');
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.active$.next(this.active - 1);
      },
    };
  }

  /** Stops admitting and resolves when no call is active or after `timeoutMs`, whichever comes first. */
  async drain(timeoutMs: number): Promise<void> {
    this.isDraining = true;
    const idle = this.active$.pipe(filter((count) => count === 0));
    await firstValueFrom(race(idle, timer(timeoutMs)));
  }
}
