import { asyncScheduler, NEVER, Subject, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { systemClock, VirtualClock } from '../../src/pipeline/clock.js';
import { trackedWork, WorkTracker } from '../../src/pipeline/work.js';

/** Whether `promise` has settled once the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('WorkTracker', () => {
  it('is idle at once with nothing in flight, and only when the last piece of work ends', async () => {
    const tracker = new WorkTracker();
    expect(await settled(tracker.idle())).toBe(true);
    const first = tracker.begin();
    const second = tracker.begin();
    const idle = tracker.idle();
    first();
    // Ending the same work twice counts once.
    first();
    expect(tracker.pending).toBe(1);
    expect(await settled(idle)).toBe(false);
    second();
    expect(tracker.pending).toBe(0);
    expect(await settled(idle)).toBe(true);
  });

  it('does not count work waiting for the driver (waitingFor) until that event settles', async () => {
    const tracker = new WorkTracker();
    let release!: () => void;
    const event = new Promise<void>((resolve) => (release = resolve));
    const end = tracker.begin();
    const waited = tracker.waitingFor(event);
    expect(tracker.pending).toBe(0);
    expect(await settled(tracker.idle())).toBe(true);
    release();
    await waited;
    expect(tracker.pending).toBe(1);
    end();
    expect(tracker.pending).toBe(0);
  });

  it('tracks a promise until it settles', async () => {
    const tracker = new WorkTracker();
    const work = tracker.track(Promise.reject(new Error('failed')));
    expect(tracker.pending).toBe(1);
    await expect(work).rejects.toThrow('failed');
    expect(tracker.pending).toBe(0);
  });
});

describe('trackedWork', () => {
  it('counts a stream from subscription until it completes, errors or is unsubscribed, once', () => {
    const tracker = new WorkTracker();
    const completing = new Subject<number>();
    const values: number[] = [];
    const subscription = completing.pipe(trackedWork(tracker)).subscribe((v) => values.push(v));
    completing.next(1);
    expect(tracker.pending).toBe(1);
    completing.complete();
    subscription.unsubscribe();
    expect(tracker.pending).toBe(0);
    expect(values).toEqual([1]);

    const failing = new Subject<number>();
    failing.pipe(trackedWork(tracker)).subscribe({ error: () => undefined });
    expect(tracker.pending).toBe(1);
    failing.error(new Error('x'));
    expect(tracker.pending).toBe(0);

    const endless = NEVER.pipe(trackedWork(tracker)).subscribe();
    expect(tracker.pending).toBe(1);
    endless.unsubscribe();
    expect(tracker.pending).toBe(0);
  });
});

describe('clocks', () => {
  it('systemClock reads performance.now() and schedules on the async scheduler', () => {
    const before = performance.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(performance.now());
    expect(systemClock.scheduler).toBe(asyncScheduler);
  });

  it('a virtual clock never goes back, and fires a timer due at the time it is moved to', () => {
    const clock = new VirtualClock(100);
    const fired: number[] = [];
    timer(0, clock.scheduler).subscribe(() => fired.push(clock.now()));
    clock.advanceTo(100);
    expect(fired).toEqual([100]);
    clock.advanceTo(250);
    clock.advanceTo(50);
    expect(clock.now()).toBe(250);
  });
});
