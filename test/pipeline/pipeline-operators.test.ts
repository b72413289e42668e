import { from, lastValueFrom, NEVER, Subject, throwError, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../src/audio/index.js';
import { chunkText, playOut, reframe, resampleTo, segmentUtterances, VirtualClock, type PlayoutControl, type ScoredFrame, type VoiceEvent } from '../../src/pipeline/index.js';

const chars = (text: string) => from(text.split(''));
const frame = (samples: number, sampleRate: number, timestampMs: number, fill = 0): AudioFrame => ({ samples: new Int16Array(samples).fill(fill), sampleRate, timestampMs });

describe('chunkText', () => {
  const reply = 'Thank you for calling, your table for two is booked. It costs 3.5 dollars. See you tonight!';
  it('cuts the first piece at a clause in clause mode, then at sentences, whatever the deltas', async () => {
    expect(await lastValueFrom(chars(reply).pipe(chunkText({ firstChunk: 'clause' }), toArray()))).toEqual([
      'Thank you for calling,',
      'your table for two is booked.',
      'It costs 3.5 dollars.',
      'See you tonight!',
    ]);
  });
  it('cuts only at sentences in sentence mode and never inside a number', async () => {
    expect(await lastValueFrom(from(['Thank you for calling, your table', ' for two is booked. It costs 3.', '5 dollars. See you tonight!']).pipe(chunkText({ firstChunk: 'sentence' }), toArray()))).toEqual([
      'Thank you for calling, your table for two is booked.',
      'It costs 3.5 dollars.',
      'See you tonight!',
    ]);
  });
  it('does not cut after the period of an abbreviation (Dr., Mr., p.m.), whatever the deltas', async () => {
    const text = 'Dr. Smith can see you at 4 p.m. tomorrow. Mr. Jones is away, sorry. Anything else?';
    for (const deltas of [chars(text), from(text.split(/(?<= )/))]) {
      expect(await lastValueFrom(deltas.pipe(chunkText({ firstChunk: 'sentence' }), toArray()))).toEqual([
        'Dr. Smith can see you at 4 p.m. tomorrow.',
        'Mr. Jones is away, sorry.',
        'Anything else?',
      ]);
    }
  });
  it('joins a first clause shorter than minClauseChars to the next, and cuts at ; : and dashes too', async () => {
    const pieces = (text: string, options = {}) => lastValueFrom(chars(text).pipe(chunkText({ firstChunk: 'clause', ...options }), toArray()));
    expect(await pieces('Yes, of course; I can book that. Anything else?')).toEqual(['Yes, of course;', 'I can book that.', 'Anything else?']);
    expect(await pieces('Yes, of course: done.', { minClauseChars: 3 })).toEqual(['Yes,', 'of course: done.']);
    expect(await pieces('Right at this moment \u2014 tables are free. Come over!')).toEqual(['Right at this moment \u2014', 'tables are free.', 'Come over!']);
    // Sentence mode ignores clauses, and defaults to it.
    expect(await lastValueFrom(chars('Yes, of course; I can. Bye!').pipe(chunkText(), toArray()))).toEqual(['Yes, of course; I can.', 'Bye!']);
  });

  it('waits for what follows a sentence end at the end of the text so far, and ends "?!" and quotes together', async () => {
    const seen: string[] = [];
    const deltas = new Subject<string>();
    deltas.pipe(chunkText()).subscribe((piece) => seen.push(piece));
    deltas.next('Really?!');
    expect(seen).toEqual([]);
    deltas.next(' She said "fine." Then');
    expect(seen).toEqual(['Really?!', 'She said "fine."']);
    deltas.complete();
    expect(seen).toEqual(['Really?!', 'She said "fine."', 'Then']);
  });

  it('cuts overlong text without punctuation at a space', async () => {
    const pieces = await lastValueFrom(chars('word '.repeat(100)).pipe(chunkText({ maxChunkChars: 50 }), toArray()));
    expect(pieces.every((p) => p.length <= 50)).toBe(true);
    expect(pieces.join(' ')).toBe('word '.repeat(100).trim());
  });
});

describe('chunkText edges', () => {
  const pieces = (text: string, options = {}) => lastValueFrom(chars(text).pipe(chunkText({ firstChunk: 'clause', ...options }), toArray()));

  it('cuts a first clause exactly minClauseChars long (spaces around it not counted)', async () => {
    expect(await pieces('Yes, of course: done.', { minClauseChars: 4 })).toEqual(['Yes,', 'of course: done.']);
    expect(await pieces('Yes, of course: done.', { minClauseChars: 5 })).toEqual(['Yes, of course:', 'done.']);
  });

  it('cuts a word longer than maxChunkChars inside it, and waits while the text is exactly maxChunkChars', async () => {
    expect(await pieces('x'.repeat(25), { maxChunkChars: 10 })).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
    const seen: string[] = [];
    const deltas = new Subject<string>();
    deltas.pipe(chunkText({ maxChunkChars: 10 })).subscribe((piece) => seen.push(piece));
    deltas.next('aaaa bbbbb');
    expect(seen).toEqual([]);
    deltas.next('c');
    expect(seen).toEqual(['aaaa']);
  });

  it('cuts overlong text at 240 characters by default', async () => {
    const out = await lastValueFrom(chars('word '.repeat(60)).pipe(chunkText(), toArray()));
    expect(out.map((p) => p.length)).toEqual([239, 59]);
  });

  it('passes on an error of the text deltas', async () => {
    await expect(lastValueFrom(throwError(() => new Error('llm failed')).pipe(chunkText()))).rejects.toThrow('llm failed');
  });
});

describe('reframe', () => {
  it('sends the partial frame, zero-padded, at its own rate when the rate changes; pads the last one too', async () => {
    const out = await lastValueFrom(from([frame(600, 8000, 0, 7), frame(600, 16000, 75, 9)]).pipe(reframe(512), toArray()));
    expect(out.map((f) => [f.sampleRate, f.timestampMs])).toEqual([[8000, 0], [8000, 64], [16000, 75], [16000, 107]]);
    expect(out.every((f) => f.samples.length === 512)).toBe(true);
    for (const [i, fill] of [[1, 7], [3, 9]] as const) {
      expect(out[i]!.samples[87]).toBe(fill);
      expect(out[i]!.samples.subarray(88).every((s) => s === 0)).toBe(true); // not what the previous frame left
    }
  });

  it('passes on an error of the audio', async () => {
    await expect(lastValueFrom(throwError(() => new Error('line dropped')).pipe(reframe(512)))).rejects.toThrow('line dropped');
  });

  it('re-cuts 20 ms frames into exact 512-sample frames with continuous timestamps', async () => {
    const input = Array.from({ length: 10 }, (_, i) => frame(320, 16000, i * 20, i));
    const out = await lastValueFrom(from(input).pipe(reframe(512), toArray()));
    expect(out).toHaveLength(Math.ceil(3200 / 512));
    expect(out.every((f) => f.samples.length === 512)).toBe(true);
    expect(out.map((f) => f.timestampMs)).toEqual(out.map((_, i) => i * 32));
    expect(out[1]!.samples[0]).toBe(1); // sample 512 came from the second input frame
  });
});

describe('resampleTo', () => {
  it('converts 8 kHz frames to 16 kHz keeping length and time', async () => {
    const input = Array.from({ length: 50 }, (_, i) => frame(160, 8000, i * 20, 1000));
    const out = await lastValueFrom(from(input).pipe(resampleTo(16000), toArray()));
    expect(out.every((f) => f.sampleRate === 16000)).toBe(true);
    const total = out.reduce((n, f) => n + f.samples.length, 0);
    expect(Math.abs(total - 16000)).toBeLessThanOrEqual(320);
  });
});

describe('segmentUtterances', () => {
  const scored = (pattern: string): ScoredFrame[] =>
    pattern.split('').map((c, i) => ({ frame: frame(512, 16000, i * 32), probability: c === 'S' ? 0.9 : 0.1, arrivedMs: (i + 1) * 32 }));

  it('starts after the minimum speech, pads the start and ends after the endpoint silence', async () => {
    const events = await lastValueFrom(
      from(scored('..........SSSSSSSSSS................')).pipe(segmentUtterances({ minSpeechMs: 64, minSilenceMs: 200, prefixPaddingMs: 96 }), toArray()),
    );
    const start = events.find((e) => e.type === 'speech-start') as Extract<VoiceEvent, { type: 'speech-start' }>;
    expect(start.atMs).toBe(10 * 32);
    const audio = events.filter((e) => e.type === 'speech-audio') as Extract<VoiceEvent, { type: 'speech-audio' }>[];
    expect(audio[0]!.frame.timestampMs).toBe(7 * 32); // three frames (96 ms) of padding
    const end = events.find((e) => e.type === 'speech-end') as Extract<VoiceEvent, { type: 'speech-end' }>;
    expect(end.lastVoiceMs).toBe(20 * 32);
    expect(end.endpointArrivedMs - end.lastVoiceArrivedMs).toBeGreaterThanOrEqual(200);
    expect(end.endpointArrivedMs - end.lastVoiceArrivedMs).toBeLessThan(200 + 32 + 1);
    expect(end.speechMs).toBe(320);
  });

  it('ignores blips shorter than the minimum speech', async () => {
    const events = await lastValueFrom(from(scored('....S....S....')).pipe(segmentUtterances({ minSpeechMs: 64 }), toArray()));
    expect(events).toEqual([]);
  });
});

describe('playOut', () => {
  it('paces audio to the clock, pauses with a clear and resumes where the caller stopped hearing', async () => {
    const clock = new VirtualClock();
    const played: AudioFrame[] = [];
    let clears = 0;
    const sink = { play: (f: AudioFrame) => played.push(f), clear: () => clears++ };
    const control = new Subject<PlayoutControl>();
    const events: string[] = [];
    let finished = false;
    const audio = Array.from({ length: 50 }, (_, i) => frame(320, 16000, i * 20, 1)); // 1000 ms
    from(audio)
      .pipe(playOut(sink, clock, control, { leadMs: 40, tickMs: 20 }))
      .subscribe({ next: (e) => events.push(e.type), complete: () => (finished = true) });
    const handedMs = () => played.reduce((n, f) => n + f.samples.length / 16, 0);
    expect(handedMs()).toBeLessThanOrEqual(60); // only the lead is handed out at once
    clock.advanceTo(300);
    expect(handedMs()).toBeGreaterThanOrEqual(300);
    expect(handedMs()).toBeLessThanOrEqual(360);
    control.next('pause');
    expect(clears).toBe(1);
    const atPause = handedMs();
    clock.advanceTo(800);
    expect(handedMs()).toBe(atPause);
    control.next('resume');
    clock.advanceTo(3000);
    expect(finished).toBe(true);
    expect(events).toEqual(['first-audio', 'paused', 'resumed', 'finished']);
    // Heard 300 ms before the pause, then the remaining 700 ms: the lead handed before the pause is sent again.
    expect(handedMs() - (atPause - 300)).toBeCloseTo(1000, 0);
  });

  it('resumes from a pause at any fraction of a millisecond and still finishes', () => {
    const clock = new VirtualClock();
    const played: AudioFrame[] = [];
    const control = new Subject<PlayoutControl>();
    let finished = false;
    from(Array.from({ length: 10 }, (_, i) => frame(441, 22050, i * 20, 1)))
      .pipe(playOut({ play: (f) => played.push(f), clear: () => undefined }, clock, control))
      .subscribe({ complete: () => (finished = true) });
    for (const at of [33.33333, 57.7771, 101.99999]) {
      clock.advanceTo(at);
      control.next('pause');
      clock.advanceTo(at + 10.5);
      control.next('resume');
    }
    clock.advanceTo(2000);
    expect(finished).toBe(true);
    expect(played.every((f) => f.samples.length > 0)).toBe(true);
  });

  it('never finishes while the reply is still being synthesised', () => {
    const clock = new VirtualClock();
    let finished = false;
    NEVER.pipe(playOut({ play: () => undefined, clear: () => undefined }, clock, NEVER)).subscribe({ complete: () => (finished = true) });
    clock.advanceTo(10_000);
    expect(finished).toBe(false);
  });
});
