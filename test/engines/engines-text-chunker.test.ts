import { describe, expect, test } from 'vitest';
import { chunkText, TextChunker, type ChunkerOptions } from '../../src/engines/index.js';

// What the service API (docs/service-api.md) promises for chunk_length / min_chunk_length / latency, checked on generated replies
// (seeded, so a failure names a text that can be replayed) and fed whole and in deltas of every size.
const words = ['the', 'table', 'is', 'booked', 'for', 'two', 'tonight', 'at', 'seven', 'thank', 'you', 'calling', 'our', 'restaurant', 'menu', 'specials'];
const marks = ['. ', ', ', '; ', '? ', '! ', ' ', ' ', ' ', ' ', ' ', ' '];

function random(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return (state >>> 8) % n;
  };
}

function reply(seed: number): string {
  const next = random(seed);
  let text = '';
  const count = 20 + next(80);
  for (let i = 0; i < count; i++) {
    const word = words[next(words.length)]!;
    text += (i === 0 ? word[0]!.toUpperCase() + word.slice(1) : word) + (i === count - 1 ? '.' : marks[next(marks.length)]);
  }
  return text;
}

const settings: ChunkerOptions[] = [];
for (const latency of ['low', 'balanced', 'normal'] as const) {
  for (const [chunkLength, minChunkLength] of [[100, 0], [100, 30], [150, 50], [120, 100], [300, 50]] as const) {
    settings.push({ chunkLength, minChunkLength, latency });
  }
}

function streamed(text: string, options: ChunkerOptions, deltaLength: number): string[] {
  const chunker = new TextChunker(options);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += deltaLength) out.push(...chunker.push(text.slice(i, i + deltaLength)));
  return [...out, ...chunker.flush()];
}

describe('chunker promises on generated replies', () => {
  test('no text is lost or repeated, no chunk is over chunk_length, and deltas of any size give the same chunks', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const text = reply(seed);
      for (const options of settings) {
        const chunks = chunkText(text, options);
        const where = `seed ${seed} ${JSON.stringify(options)}`;
        expect(chunks.join(' '), where).toBe(text);
        for (const chunk of chunks) expect(chunk.length, where).toBeLessThanOrEqual(options.chunkLength);
        for (const deltaLength of [1, 3, 17]) expect(streamed(text, options, deltaLength), where).toEqual(chunks);
      }
    }
  });

  test('after the first chunk, a chunk is closed short of min_chunk_length only at the end of the text', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const text = reply(seed);
      for (const options of settings) {
        const middle = chunkText(text, options).slice(1, -1);
        for (const chunk of middle) expect(chunk.length, `seed ${seed} ${JSON.stringify(options)}`).toBeGreaterThanOrEqual(options.minChunkLength);
      }
    }
  });

  test('normal latency closes a chunk at a sentence end whenever the chunk had one far enough in', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const options: ChunkerOptions = { chunkLength: 150, minChunkLength: 30, latency: 'normal' };
      const chunks = chunkText(reply(seed), options);
      for (const chunk of chunks.slice(0, -1)) {
        // A sentence end at or after min_chunk_length inside the chunk would have been the cut.
        const inner = [...chunk.slice(0, -1).matchAll(/[.?!] /g)].map((m) => m.index + 1);
        const last = inner.at(-1) ?? -1;
        if (last >= options.minChunkLength) expect(/[.?!]$/.test(chunk), `seed ${seed}: ${chunk}`).toBe(true);
      }
    }
  });
});

describe('first chunk by latency', () => {
  const text = 'Right, the table for two is booked for seven tonight. We will keep it for fifteen minutes, so do come on time.';

  test('low cuts at the first clause whatever min_chunk_length says', () => {
    expect(chunkText(text, { chunkLength: 300, minChunkLength: 100, latency: 'low' })).toEqual([
      'Right,',
      'the table for two is booked for seven tonight. We will keep it for fifteen minutes, so do come on time.',
    ]);
  });

  test('balanced waits for min_chunk_length before a clause, but cuts at any sentence end', () => {
    expect(chunkText(text, { chunkLength: 300, minChunkLength: 6, latency: 'balanced' })[0]).toBe('Right,');
    expect(chunkText(text, { chunkLength: 300, minChunkLength: 7, latency: 'balanced' })[0]).toBe(
      'Right, the table for two is booked for seven tonight.',
    );
    expect(chunkText('Yes. The table is booked.', { chunkLength: 300, minChunkLength: 100, latency: 'balanced' })[0]).toBe('Yes.');
  });

  test('balanced cuts an overlong first sentence at words and carries no text over', () => {
    const long = 'one two three four five six seven eight nine ten eleven twelve.';
    expect(chunkText(long, { chunkLength: 20, minChunkLength: 0, latency: 'balanced' })).toEqual([
      'one two three four',
      'five six seven eight',
      'nine ten eleven',
      'twelve.',
    ]);
  });

  test('only the first chunk is early: the rest are packed to chunk_length', () => {
    const chunks = chunkText(`${text} ${text}`, { chunkLength: 120, minChunkLength: 10, latency: 'low' });
    expect(chunks[0]).toBe('Right,');
    expect(chunks[1]).toBe('the table for two is booked for seven tonight. We will keep it for fifteen minutes, so do come on time.');
  });
});

describe('text without boundaries', () => {
  test('is cut at the last space before chunk_length while it streams in, once the next word has begun', () => {
    const chunker = new TextChunker({ chunkLength: 20, minChunkLength: 0, latency: 'normal' });
    expect(chunker.push('aaaa bbbb cccc dddd')).toEqual([]); // 19 characters: still fits
    expect(chunker.push(' eeee')).toEqual([]); // "eeee" may go on
    expect(chunker.push(' ffff')).toEqual(['aaaa bbbb cccc dddd']);
    expect(chunker.flush()).toEqual(['eeee ffff']);
  });

  test('a single word longer than chunk_length is cut inside it', () => {
    expect(chunkText('abcdefghijklmnopqrstuvwxyz', { chunkLength: 10, minChunkLength: 0 })).toEqual(['abcdefghij', 'klmnopqrst', 'uvwxyz']);
  });

  test('whitespace alone makes no chunk, and flush with nothing pending returns nothing', () => {
    expect(chunkText('   ')).toEqual([]);
    const chunker = new TextChunker();
    expect(chunker.push('Hello there')).toEqual([]);
    expect(chunker.flush()).toEqual(['Hello there']);
    expect(chunker.flush()).toEqual([]);
  });
});
