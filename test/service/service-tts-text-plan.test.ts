import { describe, expect, it } from 'vitest';
import { planChunks, type ChunkingOptions } from '../../src/service/tts/text-plan.js';

const options: ChunkingOptions = { chunkLength: 100, minChunkLength: 0, latency: 'normal', normalize: false };

describe('planChunks', () => {
  it('gives each chunk the speaker of its tag, two-digit indices included, and reports the last speaker', () => {
    const plan = planChunks('Hello. <|speaker:11|>Hi there. <|speaker:2|>Good day.', options, 12);
    expect(plan.chunks).toEqual([
      { text: 'Hello.', speaker: 0 },
      { text: 'Hi there.', speaker: 11 },
      { text: 'Good day.', speaker: 2 },
    ]);
    expect(plan.lastSpeaker).toBe(2);
    expect(planChunks('<|speaker:11|>Hi.', options, 12).lastSpeaker).toBe(11);
  });

  it('starts untagged text with startSpeaker and keeps it as the last speaker when no tag follows', () => {
    const plan = planChunks('Still me. <|speaker:0|>Now you.', options, 3, 2);
    expect(plan.chunks).toEqual([
      { text: 'Still me.', speaker: 2 },
      { text: 'Now you.', speaker: 0 },
    ]);
    expect(plan.lastSpeaker).toBe(0);
    const untagged = planChunks('Still me.', options, 3, 2);
    expect(untagged.chunks).toEqual([{ text: 'Still me.', speaker: 2 }]);
    expect(untagged.lastSpeaker).toBe(2);
  });

  it('lets a leading tag (after spaces) override startSpeaker', () => {
    const plan = planChunks('  <|speaker:1|>Over to you.', options, 3, 2);
    expect(plan.chunks).toEqual([{ text: 'Over to you.', speaker: 1 }]);
    expect(planChunks('<|speaker:10|>Ten.', options, 11, 2).chunks).toEqual([{ text: 'Ten.', speaker: 10 }]);
  });

  it('bills the characters without tags and outer spaces', () => {
    expect(planChunks(' <|speaker:1|>Hi. <|speaker:10|>Yo. ', options, 11).characters).toBe('Hi. Yo.'.length);
  });

  it('cuts with the given chunk length, and shapes only the very first chunk by latency', () => {
    const long = 'We have a table by the window, and one on the terrace. Both are free at seven tonight.';
    const plan = planChunks(`${long} <|speaker:1|>${long}`, { ...options, chunkLength: 60, latency: 'low' }, 2);
    expect(plan.chunks).toEqual([
      { text: 'We have a table by the window,', speaker: 0 },
      { text: 'and one on the terrace. Both are free at seven tonight.', speaker: 0 },
      { text: 'We have a table by the window, and one on the terrace.', speaker: 1 },
      { text: 'Both are free at seven tonight.', speaker: 1 },
    ]);
  });

  it('spells numbers and symbols out only when asked', () => {
    expect(planChunks('Table 3 at 7 pm.', options, 1).chunks[0]!.text).toBe('Table 3 at 7 pm.');
    expect(planChunks('Table 3 at 7 pm.', { ...options, normalize: true }, 1).chunks[0]!.text).toMatch(/^Table three at seven/);
  });
});
