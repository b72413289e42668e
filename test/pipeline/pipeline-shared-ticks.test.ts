import { from, NEVER } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../src/audio/index.js';
import { playOut, VirtualClock } from '../../src/pipeline/index.js';
import { sharedTicks } from '../../src/pipeline/shared-ticks.js';

const reply = (ms: number, fill: number): AudioFrame[] =>
  Array.from({ length: ms / 20 }, (_, i) => ({ samples: new Int16Array(160).fill(fill), sampleRate: 8000, timestampMs: i * 20 }));

describe('sharedTicks', () => {
  it('runs one timer for all its subscribers, and none once the last has gone', () => {
    const clock = new VirtualClock();
    const seen: string[] = [];
    const a = sharedTicks(20, clock.scheduler).subscribe(() => seen.push(`a${clock.now()}`));
    clock.advanceTo(10);
    const b = sharedTicks(20, clock.scheduler).subscribe(() => seen.push(`b${clock.now()}`));
    expect(clock.scheduler.actions).toHaveLength(1);
    clock.advanceTo(40);
    expect(seen).toEqual(['a20', 'b20', 'a40', 'b40']);
    a.unsubscribe();
    b.unsubscribe();
    clock.advanceTo(100);
    expect(seen).toHaveLength(4);
    expect(clock.scheduler.actions.filter((action) => !action.closed)).toHaveLength(0);
    sharedTicks(20, clock.scheduler).subscribe(() => seen.push(`c${clock.now()}`));
    clock.advanceTo(120);
    expect(seen.at(-1)).toBe('c120');
  });

  it('keeps clocks and tick lengths apart', () => {
    const one = new VirtualClock();
    const other = new VirtualClock();
    expect(sharedTicks(20, one.scheduler)).toBe(sharedTicks(20, one.scheduler));
    expect(sharedTicks(20, one.scheduler)).not.toBe(sharedTicks(40, one.scheduler));
    expect(sharedTicks(20, one.scheduler)).not.toBe(sharedTicks(20, other.scheduler));
  });
});

describe('playOut on shared ticks', () => {
  it('paces many replies on one clock with one timer, each in real time to its end', () => {
    const clock = new VirtualClock();
    const played = new Map<number, number>();
    const finishedAt = new Map<number, number>();
    for (const [index, startMs] of [0, 7, 13].entries()) {
      clock.advanceTo(startMs);
      const sink = { play: (f: AudioFrame) => played.set(index, (played.get(index) ?? 0) + f.samples.length / 8), clear: () => undefined };
      from(reply(400, index + 1))
        .pipe(playOut(sink, clock, NEVER, { leadMs: 80, tickMs: 20 }))
        .subscribe((event) => event.type === 'finished' && finishedAt.set(index, clock.now()));
    }
    expect(clock.scheduler.actions.filter((action) => !action.closed)).toHaveLength(1);
    clock.advanceTo(200);
    for (const index of [0, 1, 2]) expect(played.get(index)).toBeLessThanOrEqual(200 + 80);
    clock.advanceTo(1000);
    for (const [index, startMs] of [0, 7, 13].entries()) {
      expect(played.get(index)).toBe(400);
      // Finished within one tick after its 400 ms were heard.
      expect(finishedAt.get(index)! - (startMs + 400)).toBeGreaterThanOrEqual(0);
      expect(finishedAt.get(index)! - (startMs + 400)).toBeLessThanOrEqual(20);
    }
    expect(clock.scheduler.actions.filter((action) => !action.closed)).toHaveLength(0);
  });
});
