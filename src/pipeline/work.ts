import { Observable, type MonoTypeOperatorFunction } from 'rxjs';

/**
 * Counts asynchronous work in flight (engine calls, dialogue, synthesis) so a driver with a virtual clock
 * can wait until the pipeline has settled before advancing time. Real-time callers can ignore it.
 */
export class WorkTracker {
  private inFlight = 0;
  private waiters: Array<() => void> = [];

  get pending(): number {
    return this.inFlight;
  }

  begin(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      if (this.inFlight === 0) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const wake of waiters) wake();
      }
    };
  }

  track<T>(promise: Promise<T>): Promise<T> {
    const end = this.begin();
    return promise.finally(end);
  }

  /** Resolves when nothing is in flight. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** Marks the source as in-flight work from subscription until it completes, errors or is unsubscribed. */
export function trackedWork<T>(tracker: WorkTracker | undefined): MonoTypeOperatorFunction<T> {
  return (source) =>
    tracker
      ? new Observable<T>((subscriber) => {
          const end = tracker.begin();
          const subscription = source.subscribe({
            next: (value) => subscriber.next(value),
            error: (error: unknown) => {
              end();
              subscriber.error(error);
            },
            complete: () => {
              end();
              subscriber.complete();
            },
          });
          return () => {
            end();
            subscription.unsubscribe();
          };
        })
      : source;
}
