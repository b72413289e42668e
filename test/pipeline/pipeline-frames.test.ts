import { lastValueFrom, Subject, toArray } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { concatFrames, createFrame, Resampler, splitFrame, type AudioFrame } from '../../src/audio/index.js';
import type { VoiceActivityDetector } from '../../src/engines/index.js';
import { resampleTo, scoreSpeech, VirtualClock, WorkTracker, type ScoredFrame } from '../../src/pipeline/index.js';

// Frame helpers' refusals, speech scoring (order, arrival time, tracked work) and resampling of a stream
// whose rate changes.

const frameAt = (rate: number, ms: number, value = 1000): AudioFrame => createFrame(new Int16Array((rate * ms) / 1000).fill(value), rate);

describe('frame helpers refuse what they cannot make', () => {
  it('a sample rate that is not a positive integer', () => {
    for (const rate of [0, -8000, 16000.5]) {
      expect(() => createFrame(new Int16Array(4), rate)).toThrow(new RangeError(`sample rate must be a positive integer, got ${rate}`));
    }
    expect(createFrame(new Int16Array(4), 1).sampleRate).toBe(1);
  });

  it('a frame size that is not a positive integer, and joining nothing', () => {
    expect(() => splitFrame(frameAt(16000, 20), 0)).toThrow(new RangeError('samplesPerFrame must be a positive integer, got 0'));
    expect(() => concatFrames([])).toThrow(new RangeError('concatFrames needs at least one frame'));
    expect(splitFrame(frameAt(16000, 20), 160).map((f) => f.samples.length)).toEqual([160, 160]);
  });
});

describe('scoreSpeech', () => {
  it('scores each frame in order with the time it arrived, counting the detector\'s work as in flight', async () => {
    const clock = new VirtualClock(100);
    const tracker = new WorkTracker();
    const resolvers: Array<(p: number) => void> = [];
    const detector = {
      frameSamples: 512,
      probability: () => new Promise<number>((resolve) => resolvers.push(resolve)),
      reset: () => undefined,
      release: () => undefined,
    } as VoiceActivityDetector;
    const frames = new Subject<AudioFrame>();
    const scored: ScoredFrame[] = [];
    frames.pipe(scoreSpeech(detector, clock, tracker)).subscribe((s) => scored.push(s));
    const [a, b] = [frameAt(16000, 32, 1), frameAt(16000, 32, 2)];
    frames.next(a);
    clock.advanceTo(132);
    frames.next(b);
    expect(tracker.pending).toBe(1);
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
    resolvers[0]!(0.9);
    await settle();
    expect(resolvers).toHaveLength(2);
    resolvers[1]!(0.1);
    await settle();
    expect(scored).toEqual([
      { frame: a, probability: 0.9, arrivedMs: 100 },
      { frame: b, probability: 0.1, arrivedMs: 132 },
    ]);
    expect(tracker.pending).toBe(0);
  });
});

describe('resampleTo', () => {
  it('passes frames at the rate through as they are, and converts other rates, also when the rate changes', async () => {
    const wide = frameAt(16000, 20);
    const source = new Subject<AudioFrame>();
    const result = lastValueFrom(source.pipe(resampleTo(16000), toArray()));
    source.next(wide);
    source.next(frameAt(8000, 20));
    source.next(frameAt(16000, 20, 500));
    source.next(frameAt(8000, 20));
    source.complete();
    const frames = await result;
    expect(frames[0]).toBe(wide);
    // In order: a 16 kHz frame that came while the 8 kHz resampler was being made waits its turn (it overtook
    // the converted frame before the fix).
    expect(frames.map((f) => f.sampleRate)).toEqual([16000, 16000, 16000, 16000]);
    expect(frames[1]!.samples.length).toBeGreaterThan(150);
    expect(frames[1]!.samples.every((s) => s !== 500)).toBe(true);
    expect(frames[2]!.samples).toEqual(new Int16Array(320).fill(500));
    expect(frames[3]!.samples.length).toBeGreaterThan(150);
  });

  it('passes a source error on after the frames before it, and stops emitting once unsubscribed', async () => {
    const source = new Subject<AudioFrame>();
    const seen: AudioFrame[] = [];
    let failure: unknown;
    const subscription = source.pipe(resampleTo(16000)).subscribe({ next: (f) => seen.push(f), error: (e: unknown) => (failure = e) });
    source.next(frameAt(8000, 20));
    source.error(new Error('socket closed'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toHaveLength(1);
    expect(failure).toEqual(new Error('socket closed'));
    subscription.unsubscribe();

    const later = new Subject<AudioFrame>();
    const after: AudioFrame[] = [];
    const cut = later.pipe(resampleTo(16000)).subscribe((f) => after.push(f));
    later.next(frameAt(8000, 20));
    cut.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(after).toEqual([]);
  });

  it('hands frames at the rate over at once, also again once earlier conversions have drained', async () => {
    const source = new Subject<AudioFrame>();
    const seen: AudioFrame[] = [];
    source.pipe(resampleTo(16000)).subscribe((f) => seen.push(f));
    source.next(frameAt(16000, 20));
    expect(seen).toHaveLength(1);
    source.next(frameAt(8000, 20));
    source.next(frameAt(16000, 20));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toHaveLength(3);
    source.next(frameAt(16000, 20));
    expect(seen).toHaveLength(4);
  });

  it('converts at once, in order, once the resampler exists and no frame is waiting for it', async () => {
    const source = new Subject<AudioFrame>();
    const seen: AudioFrame[] = [];
    source.pipe(resampleTo(16000)).subscribe((f) => seen.push(f));
    source.next(frameAt(8000, 20, 100));
    source.next(frameAt(8000, 20, 200)); // behind the first while the resampler is made: waits its turn
    expect(seen).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toHaveLength(2);
    source.next(frameAt(8000, 20, 300));
    expect(seen).toHaveLength(3);
    expect(seen.map((f) => f.sampleRate)).toEqual([16000, 16000, 16000]);
    // The filter's delay aside, each converted frame carries its own input's level, in order.
    expect(seen.map((f) => f.samples.at(-1))).toEqual([expect.closeTo(100, 0), expect.closeTo(200, 0), expect.closeTo(300, 0)]);
  });

  it('fails on a rate no resampler can take, and releases its resampler when unsubscribed', async () => {
    let failure: unknown;
    const broken = new Subject<AudioFrame>();
    broken.pipe(resampleTo(16000)).subscribe({ error: (e: unknown) => (failure = e) });
    broken.next({ samples: new Int16Array(10), sampleRate: -1, timestampMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(failure).toBeInstanceOf(Error);

    const destroy = vi.spyOn(Resampler.prototype, 'destroy');
    const source = new Subject<AudioFrame>();
    const subscription = source.pipe(resampleTo(16000)).subscribe();
    source.next(frameAt(8000, 20));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(destroy).not.toHaveBeenCalled();
    subscription.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(destroy).toHaveBeenCalledTimes(1);
    destroy.mockRestore();
  });
});
