import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from '../../metrics/index.js';
import type { CallRecordStore } from './call-record.js';
import { applyWrite, type CallSpool, type CallWrite } from './call-spool.js';

export const writeQueueDefaults = {
  /** Writes kept in memory while the store is unreachable; past this, a call's writes go to the spool. */
  maxQueued: 10_000,
  /** The first retry of a failed write, ms; each next one waits twice as long, up to `retryMaxMs`. */
  retryFirstMs: 200,
  retryMaxMs: 10_000,
  /** How long `close()` waits for the queue to be written before spooling what is left, ms. */
  closeWaitMs: 2_000,
};

/** What the queue says when writes start failing and when they recover (a pino logger fits). */
export interface RecordsLog {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface WriteQueueOptions extends Partial<typeof writeQueueDefaults> {
  /** Where writes go past the bound and at close; without one, writes past the bound are dropped and counted. */
  spool?: CallSpool;
  log?: RecordsLog;
}

const registers = [metricsRegistry];
const queues = new Set<CallWriteQueue>();
const failures = new Counter({ name: 'shoal_call_record_write_failures_total', help: 'Call record writes that failed and were kept to retry', registers });
const spooled = new Counter({ name: 'shoal_call_record_writes_spooled_total', help: 'Call record writes kept in the spool file, replayed at the next start', registers });
const lost = new Counter({ name: 'shoal_call_record_writes_lost_total', help: 'Call record writes dropped: the queue was full and no spool file was set', registers });
new Gauge({
  name: 'shoal_call_record_writes_queued',
  help: 'Call record writes waiting for the store (it is unreachable or slow)',
  registers,
  collect() {
    this.set([...queues].reduce((total, queue) => total + queue.queued, 0));
  },
});

interface QueuedCall {
  writes: CallWrite[];
  draining: boolean;
  /** Its writes go to the spool from now on, keeping them in order. */
  spooled: boolean;
}

/**
 * The writes of every call kept in one store: in order per call, each call's next write as soon as the last one
 * is done, a failed write retried with backoff (the call never waits). What the store cannot take in time goes
 * to the spool: past the bound, and at close.
 */
export class CallWriteQueue {
  private readonly calls = new Map<string, QueuedCall>();
  private readonly options: typeof writeQueueDefaults & WriteQueueOptions;
  private failing: { since: number; failures: number; spooled: number } | undefined;
  private closed = false;
  private readonly wakers = new Set<() => void>();
  /** The spool's replay while the process runs, until the spool is empty. */
  private replaying: Promise<void> | undefined;
  queued = 0;
  /** Writes promised by `pushWhen` and not pushed yet. */
  private promised = 0;

  constructor(readonly store: CallRecordStore, options: WriteQueueOptions = {}) {
    this.options = { ...writeQueueDefaults, ...options };
    queues.add(this);
    // What an earlier start could not write (the store refused it then) is written once the store answers.
    if (this.options.spool?.pending) this.replaySpool();
  }

  push(write: CallWrite): void {
    const call = this.calls.get(write.callId) ?? { writes: [], draining: false, spooled: false };
    this.calls.set(write.callId, call);
    if (call.spooled || this.closed) return this.toSpool([write]);
    if (this.queued >= this.options.maxQueued) {
      if (!this.options.spool) return this.toSpool([write]);
      // The call's queued writes go first, so that its spooled writes are in order.
      const moved = [...call.writes.splice(0), write];
      this.queued -= moved.length - 1;
      call.spooled = true;
      return this.toSpool(moved);
    }
    call.writes.push(write);
    this.queued++;
    if (!call.draining) void this.drain(write.callId, call);
  }

  /** Pushes the writes `later` resolves with; `settled()` and `close()` wait for them as for queued writes. */
  pushWhen(later: Promise<readonly CallWrite[]>): void {
    this.promised++;
    void later
      .then((writes) => writes.forEach((write) => this.push(write)), () => undefined)
      .finally(() => {
        this.promised--;
        this.wake();
      });
  }

  /** Resolves once every queued (and promised) write is done, or after `waitMs`. */
  async settled(waitMs = Number.POSITIVE_INFINITY): Promise<void> {
    const deadline = Date.now() + waitMs;
    while ((this.queued > 0 || this.promised > 0) && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const wake = () => (clearTimeout(timer), this.wakers.delete(wake), resolve());
        const timer = setTimeout(wake, Math.min(deadline - Date.now(), 50));
        this.wakers.add(wake);
      });
    }
  }

  /** Waits up to `closeWaitMs` for the queue, then spools what is left (later writes go to the spool). */
  async close(): Promise<void> {
    await this.settled(this.options.closeWaitMs);
    this.closed = true;
    this.wake();
    await this.replaying;
    const left = [...this.calls.values()].flatMap((call) => call.writes.splice(0));
    this.queued = 0;
    this.toSpool(left);
    queues.delete(this);
  }

  /**
   * Replays the spool into the store while the process runs, off the calls' path: at once, then again with
   * backoff until it is empty (each pass stops trying a call at its first refused write). The calls whose
   * writes were spooled then go straight to the store again.
   */
  private replaySpool(): void {
    const spool = this.options.spool;
    if (!spool || this.replaying || this.closed) return;
    let emptied = false;
    const options = {
      stop: () => this.closed,
      emptied: () => {
        emptied = true;
        for (const [callId, call] of this.calls) {
          call.spooled = false;
          if (call.writes.length === 0 && !call.draining) this.calls.delete(callId);
        }
      },
    };
    this.replaying = (async () => {
      let delayMs = this.options.retryFirstMs;
      while (!this.closed) {
        const report = await spool.replay(this.store, options).catch((error: unknown) => {
          this.options.log?.warn({ reason: error instanceof Error ? error.message : String(error), spool: spool.path }, 'call records: the spool could not be replayed');
          return undefined;
        });
        if (report && report.replayed + report.unreadable > 0) this.options.log?.warn({ ...report, spool: spool.path }, 'call records: spooled writes written to the store');
        if (emptied) return;
        await this.sleep(delayMs);
        delayMs = Math.min(delayMs * 2, this.options.retryMaxMs);
      }
    })().finally(() => (this.replaying = undefined));
  }

  private async drain(callId: string, call: QueuedCall): Promise<void> {
    call.draining = true;
    let delayMs = this.options.retryFirstMs;
    while (call.writes.length > 0 && !this.closed) {
      const write = call.writes[0]!;
      try {
        await applyWrite(this.store, write);
        // Moved to the spool meanwhile: the spool's copy is replayed, harmlessly (writes are idempotent).
        if (call.writes[0] === write) {
          call.writes.shift();
          this.queued--;
        }
        this.recovered();
        delayMs = this.options.retryFirstMs;
      } catch (error) {
        this.failed(error);
        await this.sleep(delayMs);
        delayMs = Math.min(delayMs * 2, this.options.retryMaxMs);
      }
    }
    call.draining = false;
    if (call.writes.length === 0 && !call.spooled) this.calls.delete(callId);
    this.wake();
  }

  private toSpool(writes: CallWrite[]): void {
    if (writes.length === 0) return;
    if (!this.options.spool) {
      lost.inc(writes.length);
      this.options.log?.warn({ writes: writes.length }, 'call records: writes dropped, the queue is full and there is no spool file');
      return;
    }
    this.options.spool.add(writes);
    spooled.inc(writes.length);
    if (this.failing) this.failing.spooled += writes.length;
    this.replaySpool();
    if (this.closed) this.options.log?.warn({ writes: writes.length, spool: this.options.spool.path }, 'call records: writes not done at close kept in the spool, replayed at the next start');
  }

  private failed(error: unknown): void {
    failures.inc();
    if (this.failing) {
      this.failing.failures++;
      return;
    }
    this.failing = { since: Date.now(), failures: 1, spooled: 0 };
    const reason = error instanceof Error ? error.message : String(error);
    this.options.log?.warn({ reason, queued: this.queued }, 'call records: writes are failing; they are kept and retried');
  }

  private recovered(): void {
    if (!this.failing) return;
    const { since, failures: failed, spooled: toSpool } = this.failing;
    this.failing = undefined;
    this.options.log?.warn({ failedAttempts: failed, queued: this.queued, spooled: toSpool, outageMs: Date.now() - since }, 'call records: writes recovered');
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => (clearTimeout(timer), this.wakers.delete(wake), resolve());
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  private wake(): void {
    for (const wake of [...this.wakers]) wake();
  }
}
