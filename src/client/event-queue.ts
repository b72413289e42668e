/**
 * A single-consumer async queue: the live session pushes events as frames arrive and the caller pulls them
 * with `for await`. `drop` removes queued events (barge-in); `fail` ends iteration with an error.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | null = null;
  private ended = false;
  private error: unknown;
  private hasError = false;
  private iterating = false;

  push(item: T): void {
    if (this.ended) return;
    if (this.waiting) {
      const waiting = this.waiting;
      this.waiting = null;
      waiting.resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  /** Removes queued, not yet consumed events that match. */
  drop(match: (item: T) => boolean): number {
    const before = this.items.length;
    this.items = this.items.filter((item) => !match(item));
    return before - this.items.length;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.settleWaiting();
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.hasError = true;
    this.error = error;
    this.ended = true;
    this.settleWaiting();
  }

  private settleWaiting(): void {
    if (!this.waiting || this.items.length) return;
    const waiting = this.waiting;
    this.waiting = null;
    if (this.hasError) waiting.reject(this.error);
    else waiting.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.iterating) throw new Error('the live audio can be iterated by one consumer only');
    this.iterating = true;
    return {
      next: () => {
        if (this.items.length) return Promise.resolve({ value: this.items.shift()!, done: false });
        if (this.ended) return this.hasError ? Promise.reject(this.error) : Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
      },
      return: () => {
        this.iterating = false;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
