import { describe, expect, it } from 'vitest';
import { IntentMatcher, loadScript } from '../../plugins/index.js';

const script = loadScript(new URL('../../agents/receptionist/receptionist.yaml', import.meta.url).pathname);
const matcher = new IntentMatcher(script.intents, script.synonyms);
const threshold = script.threshold ?? 0.6;
const heard = (text: string) => {
  const best = matcher.rank(text)[0]!;
  return best.score >= threshold ? best.intent : 'none';
};

describe('the receptionist\'s intents', () => {
  // Fitted on: the receptionist's examples were written and adjusted until these were matched. Nothing here is
  // a recorded test sentence.
  it.each([
    ['i would love to reserve a table', 'book'],
    ['have you got room for six on saturday', 'book'],
    ['are you open late tonight', 'hours'],
    ['what are your hours on sunday', 'hours'],
    ['yes that is fine', 'yes'],
    ['sure go ahead', 'yes'],
    ['no i am fine thanks', 'no'],
    ['put me through to somebody', 'human'],
    ['bye then', 'goodbye'],
  ])('fitting set: "%s" → %s', (text, intent) => expect(heard(text)).toBe(intent));

  // Held out: the sentences of the recordings the fixture calls and recognition tests use
  // (test/fixtures/speech/manifest.json, test/fixtures/calls/manifest.json), none of them an example.
  it.each([
    ['hello i would like to book a table for two people tonight', 'book'],
    ['what time do you open on saturday', 'hours'],
    ['yes that sounds good', 'yes'],
    ['no thank you', 'no'],
    ['please transfer me to a human agent', 'human'],
    ['goodbye', 'goodbye'],
    ['what is my account balance', 'none'],
    ['can you tell me the weather in paris', 'none'],
  ])('held-out recording sentence: "%s" → %s', (text, intent) => expect(heard(text)).toBe(intent));

  it('has no recorded test sentence among its examples', () => {
    const recorded = [
      'hello i would like to book a table for two people tonight', 'what time do you open on saturday', 'my name is john smith',
      'yes that sounds good', 'can you tell me the weather in paris', 'i want to cancel my order',
      'please transfer me to a human agent', 'goodbye', 'what is my account balance', 'no thank you',
    ];
    const examples = Object.values(script.intents).flatMap((intent) => intent.examples ?? []);
    for (const example of examples) {
      expect(recorded.some((sentence) => sentence.includes(example) && example.split(' ').length > 1), example).toBe(false);
      expect(recorded, example).not.toContain(example);
    }
  });
});
