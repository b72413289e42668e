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
      this.change(-1);
    };
  }

  track<T>(promise: Promise<T>): Promise<T> {
    const end = this.begin();
    return promise.finally(end);
  }

  /** Resolves when nothing is in flight. */
  idle(): Promise<void> {
    if (this.inFlight <= 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Tracked work that waits on `event` (something only the driver's clock can bring, like the caller's final
   * transcript) does not count as in flight until `event` settles.
   */
  waitingFor<T>(event: Promise<T>): Promise<T> {
    this.change(-1);
    return event.finally(() => this.change(+1));
  }

  private change(by: number): void {
    this.inFlight += by;
    if (this.inFlight <= 0 && this.waiters.length > 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    }
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
