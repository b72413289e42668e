import { NEVER, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../src/audio/index.js';
import { PacedPlayout, playOut, VirtualClock, type PlayoutEvent, type PlayoutSink } from '../../src/pipeline/index.js';

// Paced playout against a clock the test moves: what the sink receives and when, what the caller has heard.
const rate = 16_000;
const frameMs = 20;
const samplesPerFrame = (rate * frameMs) / 1000;

/** Reply frame `index` (20 ms); every sample holds its position in the reply, so a piece shows where it starts. */
function replyFrame(index: number): AudioFrame {
  const samples = new Int16Array(samplesPerFrame).map((_, i) => index * samplesPerFrame + i);
  return { samples, sampleRate: rate, timestampMs: 5000 + index * frameMs };
}

interface RecordingSink extends PlayoutSink {
  played: AudioFrame[];
  clears: number;
}

function recordingSink(extra: Partial<PlayoutSink> = {}): RecordingSink {
  const sink: RecordingSink = {
    played: [],
    clears: 0,
    play: (frame) => sink.played.push(frame),
    clear: () => sink.clears++,
    ...extra,
  };
  return sink;
}

const sentMs = (sink: RecordingSink) => sink.played.reduce((ms, f) => ms + (f.samples.length * 1000) / f.sampleRate, 0);

function setup(options: { leadMs?: number; maxBufferedMs?: number; sink?: RecordingSink } = {}) {
  let now = 1000;
  const clock = { now: () => now, scheduler: new VirtualClock().scheduler };
  const events: PlayoutEvent[] = [];
  const sink = options.sink ?? recordingSink();
  const playout = new PacedPlayout(sink, clock, { leadMs: options.leadMs ?? 80, tickMs: 20, maxBufferedMs: options.maxBufferedMs ?? 10_000 }, (e) =>
    events.push(e),
  );
  const at = (ms: number) => {
    now = ms;
    return playout.pump();
  };
  return { playout, sink, events, at };
}

describe('PacedPlayout pacing', () => {
  it('hands out exactly the lead ahead of the clock, then keeps that lead as time passes', () => {
    const { playout, sink, events, at } = setup({ leadMs: 80 });
    for (let i = 0; i < 10; i++) playout.add(replyFrame(i));
    expect(events).toEqual([{ type: 'first-audio', atMs: 1000 }]);
    expect(sentMs(sink)).toBe(80);
    at(1050);
    expect(sentMs(sink)).toBe(140);
    at(1120);
    expect(sentMs(sink)).toBe(200);
    expect(sink.played.map((f) => f.samples[0])).toEqual([...Array(10).keys()].map((i) => i * samplesPerFrame));
  });

  it('finishes when the last sample has been heard, not when it was handed out', () => {
    const { playout, events, at } = setup({ leadMs: 80 });
    for (let i = 0; i < 3; i++) playout.add(replyFrame(i));
    playout.end();
    expect(events.map((e) => e.type)).toEqual(['first-audio']);
    expect(at(1059)).toBe(false);
    expect(playout.playedMs()).toBe(59);
    expect(at(1060)).toBe(true);
    expect(events.at(-1)).toEqual({ type: 'finished', playedMs: 60 });
  });

  it('an empty reply finishes at once, having played nothing', () => {
    const { playout, sink, events } = setup();
    playout.end();
    expect(events).toEqual([{ type: 'finished', playedMs: 0 }]);
    expect(sink.played).toEqual([]);
    expect(playout.playedMs()).toBe(0);
  });

  it('re-anchors after an underrun: late audio is heard from when it arrives', () => {
    const { playout, sink, events, at } = setup({ leadMs: 80 });
    playout.add(replyFrame(0));
    playout.add(replyFrame(1));
    at(1100); // the source starved for 60 ms after the 40 ms it sent
    playout.add(replyFrame(2));
    playout.add(replyFrame(3));
    playout.end();
    expect(sentMs(sink)).toBe(80);
    expect(playout.playedMs()).toBe(40);
    expect(at(1139)).toBe(false);
    expect(at(1140)).toBe(true);
    expect(events.at(-1)).toEqual({ type: 'finished', playedMs: 80 });
  });

  it('refuses audio beyond maxBufferedMs, accepting exactly that much', () => {
    const { playout } = setup({ maxBufferedMs: 100 });
    for (let i = 0; i < 5; i++) playout.add(replyFrame(i));
    expect(() => playout.add(replyFrame(5))).toThrow(new RangeError('reply longer than 100 ms of audio'));
  });
});

describe('PacedPlayout pause and resume', () => {
  it('pauses where the caller is, clears the sink once, and resumes from inside the frame', () => {
    const { playout, sink, events, at } = setup({ leadMs: 80 });
    for (let i = 0; i < 6; i++) playout.add(replyFrame(i));
    playout.end();
    at(1050);
    playout.pause();
    playout.pause();
    expect(events.slice(1)).toEqual([{ type: 'paused', playedMs: 50 }]);
    expect(sink.clears).toBe(1);
    expect(at(3000)).toBe(false);
    expect(playout.playedMs()).toBe(50);
    const before = sink.played.length;

    playout.resume();
    playout.resume();
    expect(events.slice(2)).toEqual([{ type: 'resumed', fromMs: 50 }]);
    const piece = sink.played[before]!;
    // 50 ms into the reply is 10 ms into its third frame.
    expect(piece.samples[0]).toBe((50 * rate) / 1000);
    expect(piece.samples.length).toBe(samplesPerFrame / 2);
    expect(piece.timestampMs).toBe(5000 + 50);
    expect(sink.played[before + 1]!.samples[0]).toBe(3 * samplesPerFrame);
    at(3010);
    expect(playout.playedMs()).toBe(60);
    expect(at(3069)).toBe(false);
    expect(at(3070)).toBe(true);
    expect(events.at(-1)).toEqual({ type: 'finished', playedMs: 120 });
  });

  it('resumes at a frame boundary with the whole frame', () => {
    const { playout, sink, at } = setup();
    for (let i = 0; i < 6; i++) playout.add(replyFrame(i));
    at(1040);
    playout.pause();
    const before = sink.played.length;
    playout.resume();
    expect(sink.played[before]).toEqual(replyFrame(2));
  });

  it('never hands the sink an empty piece when paused a hair before a frame ends', () => {
    const { playout, sink, at } = setup();
    for (let i = 0; i < 6; i++) playout.add(replyFrame(i));
    at(1059.99);
    playout.pause();
    playout.resume();
    at(1200);
    expect(sink.played.every((f) => f.samples.length > 0)).toBe(true);
  });
});

describe('PacedPlayout with a sink that counts what was played', () => {
  it('reports what the sink has played when that is less than the clock says', () => {
    // A previous reply left the sink at 500 ms played + 100 ms pending.
    let sinkPlayed = 500;
    const sink = recordingSink({ playedMs: () => sinkPlayed, pendingMs: () => 100 });
    const { playout, at } = setup({ sink });
    for (let i = 0; i < 6; i++) playout.add(replyFrame(i));
    at(1060);
    sinkPlayed = 630; // the previous reply's pending 100 ms, then 30 ms of this one
    expect(playout.playedMs()).toBe(30);
    sinkPlayed = 700;
    expect(playout.playedMs()).toBe(60);
  });

  it('counts from the sink position at resume', () => {
    let sinkPlayed = 0;
    const sink = recordingSink({ playedMs: () => sinkPlayed, pendingMs: () => 0 });
    const { playout, at } = setup({ sink });
    for (let i = 0; i < 6; i++) playout.add(replyFrame(i));
    at(1050);
    sinkPlayed = 50;
    playout.pause();
    sinkPlayed = 200; // the carrier's count after the clear
    at(2000);
    playout.resume();
    at(2020);
    sinkPlayed = 210;
    expect(playout.playedMs()).toBe(60);
  });
});

describe('playOut operator', () => {
  it('fails with the overflow error and stops pacing', () => {
    const clock = new VirtualClock();
    const audio = new Subject<AudioFrame>();
    const sink = recordingSink();
    let failure: unknown;
    audio.pipe(playOut(sink, clock, NEVER, { maxBufferedMs: 20 })).subscribe({ error: (e: unknown) => (failure = e) });
    audio.next(replyFrame(0));
    audio.next(replyFrame(1));
    expect(failure).toBeInstanceOf(RangeError);
  });

  it('passes the source error on', () => {
    const clock = new VirtualClock();
    const audio = new Subject<AudioFrame>();
    let failure: unknown;
    audio.pipe(playOut(recordingSink(), clock, NEVER)).subscribe({ error: (e: unknown) => (failure = e) });
    audio.error(new Error('tts failed'));
    expect(failure).toEqual(new Error('tts failed'));
  });

  it('stops listening to the source when unsubscribed', () => {
    const clock = new VirtualClock();
    const audio = new Subject<AudioFrame>();
    const sink = recordingSink();
    const subscription = audio.pipe(playOut(sink, clock, NEVER, { leadMs: 20 })).subscribe();
    audio.next(replyFrame(0));
    subscription.unsubscribe();
    expect(audio.observed).toBe(false);
    audio.next(replyFrame(1));
    clock.advanceTo(200);
    expect(sink.played).toHaveLength(1);
  });
});
