import { asyncScheduler, type SchedulerLike, VirtualAction, VirtualTimeScheduler } from 'rxjs';

/** The pipeline's time source: `now()` in ms and the scheduler its timers run on. */
export interface Clock {
  now(): number;
  readonly scheduler: SchedulerLike;
}

/** Wall-clock time (performance.now) with RxJS's async scheduler for timers. */
export const systemClock: Clock = {
  now: () => performance.now(),
  scheduler: asyncScheduler,
};

/**
 * A clock that only moves when told to (`advanceTo`), firing the timers that fall due on the way.
 * Makes `shoal talk --fast` and tests deterministic: time is the position in the call, not the wall.
 */
export class VirtualClock implements Clock {
  readonly scheduler: VirtualTimeScheduler;

  constructor(startMs = 0) {
    this.scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
    this.scheduler.frame = startMs;
  }

  now(): number {
    return this.scheduler.frame;
  }

  advanceTo(ms: number): void {
    if (ms < this.scheduler.frame) return;
    this.scheduler.maxFrames = ms;
    this.scheduler.flush();
    this.scheduler.frame = ms;
  }
}
