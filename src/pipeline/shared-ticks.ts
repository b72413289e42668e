import { interval, share, type Observable, type SchedulerLike } from 'rxjs';

const byScheduler = new WeakMap<SchedulerLike, Map<number, Observable<number>>>();

/**
 * A tick every `ms` on `scheduler`, one timer for all its subscribers: many calls pacing their audio wake the
 * process once per tick, not once per call. The timer starts with the first subscriber and stops after the last.
 */
export function sharedTicks(ms: number, scheduler: SchedulerLike): Observable<number> {
  let byMs = byScheduler.get(scheduler);
  if (!byMs) byScheduler.set(scheduler, (byMs = new Map()));
  let ticks = byMs.get(ms);
  if (!ticks) byMs.set(ms, (ticks = interval(ms, scheduler).pipe(share())));
  return ticks;
}
