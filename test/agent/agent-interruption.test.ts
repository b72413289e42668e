import { describe, expect, it } from 'vitest';
import { isBackchannel, playedText, substantiveWords } from '../../src/agent/interruption.js';

const options = { backchannels: ['yeah', 'ok', 'i see', 'mm-hmm', "that's right", ''] };

describe('what counts as words over the agent', () => {
  it('keeps the words that are not backchannels, ignoring case, punctuation and extra spaces', () => {
    expect(substantiveWords('Yeah,  WAIT... stop!', options)).toEqual(['wait', 'stop']);
    expect(substantiveWords("I see. That's right, I see", options)).toEqual([]);
    expect(substantiveWords('i seem ok', options)).toEqual(['i', 'seem']);
    expect(substantiveWords('mm-hmm no', options)).toEqual(['no']);
    // Longer phrases go first, so "that's right" is removed whole, not only "right".
    expect(substantiveWords("that's right", { backchannels: ['right', "that's right"] })).toEqual([]);
    expect(substantiveWords("that's right", { backchannels: ['right'] })).toEqual(["that's"]);
  });

  it('a backchannel has words and all of them are backchannels', () => {
    expect(isBackchannel('Yeah. OK!', options)).toBe(true);
    expect(isBackchannel('i see', options)).toBe(true);
    expect(isBackchannel('yeah but no', options)).toBe(false);
    expect(isBackchannel('', options)).toBe(false);
    expect(isBackchannel(' ?! ', options)).toBe(false);
  });
});

describe('what the caller heard of a reply', () => {
  const text = ' one  two three four ';
  const words = [0, 300, 600, 900].map((startMs) => ({ startMs, endMs: startMs + 250 }));

  it('by word timings: the words whose end was played when playout stopped', () => {
    expect(playedText(text, 0, 1200, words)).toBe('');
    expect(playedText(text, 249, 1200, words)).toBe('');
    expect(playedText(text, 250, 1200, words)).toBe('one');
    expect(playedText(text, 549, 1200, words)).toBe('one');
    expect(playedText(text, 550, 1200, words)).toBe('one two');
    expect(playedText(text, 1199, 1200, words)).toBe('one two three four');
  });

  it('words past the last timing (timings lagging the audio, or a provider without them took over) by their share of the rest', () => {
    const firstTwo = words.slice(0, 2);
    // Two timed words end at 550 ms; the other two share the 650 ms of audio after.
    expect(playedText(text, 549, 1200, firstTwo)).toBe('one');
    expect(playedText(text, 874, 1200, firstTwo)).toBe('one two');
    expect(playedText(text, 875, 1200, firstTwo)).toBe('one two three');
    expect(playedText(text, 1199, 1200, firstTwo)).toBe('one two three');
  });

  it('without timings: the share of the words matching the share of audio played', () => {
    expect(playedText(text, 600, 1200, [])).toBe('one two');
    expect(playedText(text, 899, 1200, [])).toBe('one two');
    expect(playedText(text, 900, 1200, [])).toBe('one two three');
    expect(playedText(text, 0, 0.5, [])).toBe('');
    expect(playedText(text, 100, 0, [])).toBe('one  two three four');
  });

  it('everything, trimmed, once all audio was played', () => {
    expect(playedText(text, 1200, 1200, words)).toBe('one  two three four');
    expect(playedText(text, 5000, 1200, [])).toBe('one  two three four');
  });
});
