import { describe, expect, test } from 'vitest';
import {
  SpeakerIndexError,
  TextChunker,
  cardinal,
  chunkText,
  normalizeEnglish,
  ordinal,
  parseSpeakerSegments,
  splitClauses,
  splitSentences,
  year,
} from '../../src/engines/index.js';

describe('number words', () => {
  test.each([
    [0, 'zero'], [13, 'thirteen'], [40, 'forty'], [99, 'ninety nine'], [105, 'one hundred five'],
    [1234, 'one thousand two hundred thirty four'], [1_000_000, 'one million'], [-7, 'minus seven'],
  ])('cardinal %d', (n, words) => expect(cardinal(n)).toBe(words));

  test.each([[1, 'first'], [2, 'second'], [3, 'third'], [12, 'twelfth'], [20, 'twentieth'], [21, 'twenty first'], [100, 'one hundredth']])(
    'ordinal %d',
    (n, words) => expect(ordinal(n)).toBe(words),
  );

  test.each([[1999, 'nineteen ninety nine'], [2005, 'two thousand five'], [2024, 'twenty twenty four'], [1900, 'nineteen hundred'], [1905, 'nineteen oh five']])(
    'year %d',
    (n, words) => expect(year(n)).toBe(words),
  );
});

describe('English normalisation', () => {
  test.each([
    ['It costs $1,234.56.', 'It costs one thousand two hundred thirty four dollars and fifty six cents.'],
    ['Only $1 or £5 or €3.50', 'Only one dollar or five pounds or three euros and fifty cents'],
    ['A $2 million deal', 'A two million dollars deal'],
    ['Prices rose 50% and 3.5%.', 'Prices rose fifty percent and three point five percent.'],
    ['Pi is 3.14', 'Pi is three point one four'],
    ['Meet at 3:30pm.', 'Meet at three thirty p m.'],
    ['Open 10 a.m. to 9 PM.', 'Open ten a m to nine p m.'],
    ['At 15:05 or 4:00.', "At fifteen oh five or four o'clock."],
    ['Due 2024-05-01.', 'Due May first twenty twenty four.'],
    ['On May 1st, 2024 we open.', 'On May first twenty twenty four we open.'],
    ['From 3rd of June', 'From the third of June'],
    ['Since Jan. 5 here', 'Since January fifth here'],
    ['She came 1st and he 22nd.', 'She came first and he twenty second.'],
    ['Dr. Smith and Mr. Jones', 'Doctor Smith and Mister Jones'],
    ['He lives on Main St. near St. Paul.', 'He lives on Main Street near Saint Paul.'],
    ['Salt & pepper', 'Salt and pepper'],
    ['2 + 2 = 4', 'two plus two equals four'],
    ['mail me @ home or bob@example', 'mail me at home or bob at example'],
    ['Room #5', 'Room number five'],
    ['In 1999 we had 12,000 guests', 'In nineteen ninety nine we had twelve thousand guests'],
    ['It was -5 outside', 'It was minus five outside'],
    ['Agent 007', 'Agent zero zero seven'],
    ['cats vs. dogs etc.', 'cats versus dogs et cetera.'],
    ['Bring snacks, e.g. chips.', 'Bring snacks, for example chips.'],
    ['Table No. 5 is free. No. It is not.', 'Table number five is free. No. It is not.'],
    ['It is 5 am now', 'It is five a m now'],
  ])('%s', (input, spoken) => expect(normalizeEnglish(input)).toBe(spoken));

  test('plain text is left alone', () => {
    expect(normalizeEnglish('Hello there, how are you?')).toBe('Hello there, how are you?');
  });
});

describe('sentence and clause splitting', () => {
  test('respects abbreviations, initials and decimals', () => {
    expect(splitSentences('Dr. Smith paid $3.50 for it. Then he left! Did he? J. R. Tolkien wrote it. Mr. Jones agreed.')).toEqual([
      'Dr. Smith paid $3.50 for it.',
      'Then he left!',
      'Did he?',
      'J. R. Tolkien wrote it.',
      'Mr. Jones agreed.',
    ]);
  });

  test('an abbreviation followed by a lower-case word does not end the sentence', () => {
    expect(splitSentences('We live in the U.S. now. It is fine.')).toEqual(['We live in the U.S. now.', 'It is fine.']);
  });

  test('clauses split at commas, semicolons, colons and dashes but not inside numbers', () => {
    expect(splitClauses('Well, I think so; maybe: yes — or no. Fine, 1,000 people came.')).toEqual([
      'Well,', 'I think so;', 'maybe:', 'yes —', 'or no.', 'Fine,', '1,000 people came.',
    ]);
  });
});

const reply =
  'Hello there, thanks for calling the restaurant. We are open from noon until ten at night, every day except Monday. ' +
  'Would you like to book a table, or do you have a question about the menu? I can also tell you about our specials tonight, ' +
  'which include a lovely risotto and a fresh fish of the day.';

describe('chunker', () => {
  test('normal latency packs whole sentences up to chunk_length', () => {
    const chunks = chunkText(reply, { chunkLength: 120, minChunkLength: 30, latency: 'normal' });
    expect(chunks[0]).toBe('Hello there, thanks for calling the restaurant. We are open from noon until ten at night, every day except Monday.');
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(120);
    expect(chunks.join(' ')).toBe(reply);
  });

  test('low latency cuts the first chunk at the first clause', () => {
    const chunks = chunkText(reply, { chunkLength: 300, minChunkLength: 50, latency: 'low' });
    expect(chunks[0]).toBe('Hello there,');
    expect(chunks.join(' ')).toBe(reply);
  });

  test('balanced latency cuts the first chunk at the first sentence when it comes before min length', () => {
    const chunks = chunkText(reply, { chunkLength: 300, minChunkLength: 50, latency: 'balanced' });
    expect(chunks[0]).toBe('Hello there, thanks for calling the restaurant.');
  });

  test('balanced latency cuts at a clause once min length is reached', () => {
    const text = 'We are open from noon until ten at night on weekdays, and from nine on weekends, except public holidays.';
    expect(chunkText(text, { chunkLength: 300, minChunkLength: 40, latency: 'balanced' })[0]).toBe(
      'We are open from noon until ten at night on weekdays,',
    );
  });

  test('normal latency with a long chunk_length keeps everything together', () => {
    expect(chunkText(reply, { chunkLength: 300, minChunkLength: 50 })).toHaveLength(1);
  });

  test('min_chunk_length merges short sentences', () => {
    const text = 'Yes. Sure. Okay then. That is all for today, thank you.';
    expect(chunkText(text, { chunkLength: 100, minChunkLength: 0, latency: 'normal' })).toEqual([text]);
    const strict = chunkText('Yes. Sure. Okay then.', { chunkLength: 100, minChunkLength: 100, latency: 'normal' });
    expect(strict).toEqual(['Yes. Sure. Okay then.']);
  });

  test('text without punctuation is cut at words to respect chunk_length', () => {
    const chunks = chunkText('word '.repeat(100), { chunkLength: 100, minChunkLength: 0 });
    expect(chunks.length).toBe(5);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(100);
  });

  test('streaming deltas produce the same chunks as the whole text, with the first chunk early', () => {
    const options = { chunkLength: 120, minChunkLength: 30, latency: 'low' as const };
    const chunker = new TextChunker(options);
    const streamed: string[] = [];
    let firstChunkAt = -1;
    let received = 0;
    for (const delta of reply.match(/.{1,5}/gs)!) {
      received += delta.length;
      const out = chunker.push(delta);
      if (out.length > 0 && firstChunkAt < 0) firstChunkAt = received;
      streamed.push(...out);
    }
    streamed.push(...chunker.flush());
    expect(streamed).toEqual(chunkText(reply, options));
    expect(firstChunkAt).toBeLessThan(20);
  });

  test('an abbreviation at a delta boundary does not end a chunk', () => {
    const chunker = new TextChunker({ latency: 'low' });
    expect(chunker.push('Dr.')).toEqual([]);
    expect(chunker.push(' Smith will see you now.')).toEqual([]);
    expect(chunker.push(' Next')).toEqual(['Dr. Smith will see you now.']);
  });
});

describe('speaker tags', () => {
  test('split text into speaker segments; text before the first tag is speaker 0', () => {
    expect(parseSpeakerSegments('Hi there. <|speaker:1|> Hello! <|speaker:0|>How are you?<|speaker:1|>')).toEqual([
      { speaker: 0, text: 'Hi there.' },
      { speaker: 1, text: 'Hello!' },
      { speaker: 0, text: 'How are you?' },
    ]);
  });

  test('text without tags is one segment', () => {
    expect(parseSpeakerSegments('Just me.')).toEqual([{ speaker: 0, text: 'Just me.' }]);
  });

  test('a speaker index beyond the given voices is a 400 error', () => {
    expect(() => parseSpeakerSegments('<|speaker:0|>a <|speaker:2|>b', 2)).toThrow(SpeakerIndexError);
    expect(() => parseSpeakerSegments('<|speaker:2|>b', 2)).toThrow(/only 2 speakers/);
    expect(new SpeakerIndexError('x').status).toBe(400);
  });
});
