import { describe, expect, it } from 'vitest';
import { IntentMatcher, normalizeText, canonicalTokens, wordSimilarity, editDistance } from '../../plugins/index.js';

const intents = {
  book: { examples: ['i would like to book a table', 'can i make a reservation'], keywords: ['book', 'table'] },
  hours: { examples: ['what time do you open', 'what are your opening hours'], keywords: ['hours'] },
  human: { examples: ['please transfer me to a human agent', 'can i speak to a person'], keywords: ['human', 'transfer'] },
  no: { examples: ['no thank you', 'no thanks'], keywords: ['no', 'nothing'] },
  yes: { examples: ['yes that sounds good', 'yes please'], keywords: ['yes'] },
  cancel: { examples: ['i want to cancel my order', 'cancel my booking'] },
  weather: { examples: ['what is the weather like', 'tell me the weather'] },
};
const synonyms = { book: ['reserve', 'reservation', 'booking'], hours: ['open', 'opening'], human: ['person', 'someone'] };
const matcher = new IntentMatcher(intents, synonyms);
const top = (text: string) => matcher.rank(text)[0]!;
const THRESHOLD = 0.6;
const expectIntent = (text: string, intent: string) => {
  const best = top(text);
  expect(best.intent).toBe(intent);
  expect(best.score).toBeGreaterThanOrEqual(THRESHOLD);
};

describe('transcript normalisation', () => {
  it('lower-cases, expands contractions, drops punctuation and recogniser markup', () => {
    expect(normalizeText("Hi, I'd like a table — what's free at 7:30 P.M.?")).toBe('hi i would like a table what is free at 7:30 pm');
    expect(normalizeText('<s> hello [noise] the(2) table </s>')).toBe('hello the table');
    expect(normalizeText('at seven p m')).toBe('at seven pm');
  });

  it('folds synonym variants, phrases first, into their canonical word', () => {
    expect(canonicalTokens('I want to reserve a seat', { book: ['reserve'] })).toEqual(['i', 'want', 'to', 'book', 'a', 'seat']);
    expect(canonicalTokens('put me through to a real person', { human: ['real person'], transfer: ['put me through'] }))
      .toEqual(['transfer', 'to', 'a', 'human']);
  });

  it('scores words alike by spelling and by sound, short words only when equal', () => {
    expect(wordSimilarity('tonight', 'tonight')).toBe(1);
    expect(wordSimilarity('tonite', 'tonight')).toBeGreaterThanOrEqual(0.7);
    expect(wordSimilarity('reservations', 'reservation')).toBeGreaterThan(0.9);
    expect(wordSimilarity('book', 'put')).toBeLessThan(0.7);
    expect(wordSimilarity('to', 'too')).toBe(0);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
  });
});

describe('intent matching on exact transcripts', () => {
  it.each([
    ['hello i would like to book a table for two people tonight', 'book'],
    ['what time do you open on saturday', 'hours'],
    ['please transfer me to a human agent', 'human'],
    ['no thank you', 'no'],
    ['yes that sounds good', 'yes'],
    ['i want to cancel my order', 'cancel'],
    ['can you tell me the weather in paris', 'weather'],
  ])('"%s" → %s', expectIntent);
});

describe('intent matching on paraphrases (sentences in no example and no fixture)', () => {
  // The examples above are the fixture sentences' own words; these were written apart from them, so the
  // matcher is tested on data it was not tuned on.
  it.each([
    ['could we reserve a table for four on friday', 'book'],
    ['id like a table for three at eight', 'book'],
    ['are you open on sunday evening', 'hours'],
    ['when do you open tomorrow', 'hours'],
    ['let me talk to a real person', 'human'],
    ['i need to speak to someone', 'human'],
    ['nothing else thanks', 'no'],
    ['no that is everything', 'no'],
    ['yes that works for me', 'yes'],
    ['yes please go ahead', 'yes'],
  ])('"%s" → %s', expectIntent);

  it('matches nothing for a request no intent covers', () => {
    expect(top('is it going to rain today').score).toBeLessThan(THRESHOLD);
  });
});

describe('intent matching on transcripts as pocketsphinx heard them', () => {
  // Outputs of pocketsphinx_continuous on test/fixtures recordings, errors included.
  it.each([
    ['hello i would like to put the table for two people tonight', 'book'],
    ['please transfer meat to a human agent', 'human'],
    ['no sent you', 'no'],
    ['what time do you have been on saturday', 'hours'],
  ])('recogniser output "%s" → %s', expectIntent);

  it.each([
    // dropped words
    ['i like book table', 'book'],
    ['transfer to human', 'human'],
    ['what time you open', 'hours'],
    // substituted words
    ['i would like two booked a table', 'book'],
    ['can i make a reservations', 'book'],
    ['please transfers me to a humane agent', 'human'],
    ['yes that sound could', 'yes'],
    ['i want to cancel my border', 'cancel'],
    ['i want to cancel my odour', 'cancel'],
    // inserted filler
    ['um yes uh that sounds good', 'yes'],
  ])('damaged transcript "%s" → %s', expectIntent);

  it('scores an unrelated utterance below the threshold', () => {
    for (const text of ['what is my account balance', 'the cat sat on the mat', 'banana']) {
      expect(top(text).score, text).toBeLessThan(THRESHOLD);
    }
  });

  it('prefers the exact example over a mere keyword hit', () => {
    const ranked = matcher.rank('no thank you');
    expect(ranked[0]!.intent).toBe('no');
    expect(ranked[0]!.score).toBeGreaterThan(0.9);
  });

  it('ranks only the candidates asked for', () => {
    const ranked = matcher.rank('please transfer me to a human agent', ['yes', 'no']);
    expect(ranked.map((r) => r.intent).sort()).toEqual(['no', 'yes']);
    expect(ranked[0]!.score).toBeLessThan(THRESHOLD);
  });
});

describe('a keyword inside another intent\'s example', () => {
  it('does not win over that example: "cancel the booking" is cancelling, not booking', () => {
    expectIntent('please cancel the booking i made', 'cancel');
    expectIntent('i need to cancel my reservation for tonight', 'cancel');
    // The keyword still decides alone when no other intent's example contains it.
    expectIntent('book', 'book');
    expectIntent('a booking for friday please', 'book');
    // And when the other intent is not a candidate, the keyword stands.
    expect(matcher.rank('please cancel the booking i made', ['book', 'hours'])[0]).toMatchObject({ intent: 'book', matched: 'book' });
  });
});
