import { describe, expect, it } from 'vitest';
import { extractSlot, tokenize, renderTemplate, TemplateSyntaxError, type SlotSpec } from '../../plugins/index.js';

const read = (text: string, spec: SlotSpec, prompted = false) => extractSlot(tokenize(text), spec, prompted);
const partySize: SlotSpec = { type: 'number', min: 1, max: 30, units: ['people', 'persons', 'guests', 'of us'] };
const time: SlotSpec = { type: 'time', meridiem: 'pm' };
const day: SlotSpec = { type: 'day' };
const name: SlotSpec = { type: 'name' };

describe('party size (number slot)', () => {
  it.each([
    ['a table for two people tonight', 2],
    ['book a table for 4 people', 4],
    ['there will be twenty one guests', 21],
    ['a table for to people', 2],
    ['we are a couple of us', 2],
    ['table for six at eight pm', 6],
    ['for three please', 3],
  ])('"%s" → %d', (text, value) => {
    expect(read(text, partySize)).toBe(value);
  });

  it('ignores numbers that are times, out of range, or homophones without a unit', () => {
    expect(read('at seven pm please', partySize)).toBeUndefined();
    expect(read('a table for fifty people', partySize)).toBeUndefined();
    expect(read('i would like to book a table', partySize)).toBeUndefined();
  });

  it('takes a bare answer only when the agent asked for the slot', () => {
    expect(read('five', partySize)).toBeUndefined();
    expect(read('five', partySize, true)).toBe(5);
    expect(read('for', partySize, true)).toBe(4);
    expect(read('just me', partySize, true)).toBe(1);
  });
});

describe('time slot', () => {
  it.each([
    ['at seven pm', '7 pm'],
    ['seven p m please', '7 pm'],
    ['7:30 pm', '7:30 pm'],
    ['at seven thirty', '7:30 pm'],
    ['half past eight', '8:30 pm'],
    ['quarter to nine', '8:45 pm'],
    ['around noon', '12 pm'],
    ['eight o clock', '8 pm'],
    ['at nine in the morning', '9 am'],
    ['ten am', '10 am'],
  ])('"%s" → %s', (text, value) => {
    expect(read(text, time)).toBe(value);
  });

  it('leaves the meridiem out when neither the words nor the slot give one', () => {
    expect(read('at seven thirty', { type: 'time' })).toBe('7:30');
    expect(read('at seven', { type: 'time' })).toBe("7 o'clock");
  });

  it('does not read a party size or a bare number as a time unless asked', () => {
    expect(read('a table for two people tonight', time)).toBeUndefined();
    expect(read('eight', time)).toBeUndefined();
    expect(read('eight', time, true)).toBe('8 pm');
    expect(read('for two people at seven', time, true)).toBe('7 pm');
  });
});

describe('day slot', () => {
  it.each([
    ['a table for two people tonight', 'tonight'],
    ['for two tonite', 'tonight'],
    ['to night please', 'tonight'],
    ['tomorrow evening', 'tomorrow evening'],
    ['is saturday free', 'on Saturday'],
    ['next friday at eight', 'next Friday'],
    ['today', 'today'],
  ])('"%s" → %s', (text, value) => {
    expect(read(text, day)).toBe(value);
  });

  it('finds nothing when no day is said', () => {
    expect(read('a table for two at eight', day)).toBeUndefined();
  });
});

describe('name slot', () => {
  it.each([
    ['my name is john smith', 'John Smith'],
    ["it's under the name of garcia please", 'Garcia'],
    ['this is maria lopez calling', 'Maria Lopez'],
  ])('"%s" → %s', (text, value) => {
    expect(read(text, name)).toBe(value);
  });

  it('takes a bare short answer only when asked, and never a function word', () => {
    expect(read('john smith', name)).toBeUndefined();
    expect(read('john smith', name, true)).toBe('John Smith');
    expect(read('yes please', name, true)).toBeUndefined();
  });
});

describe('choice and pattern slots', () => {
  const seating: SlotSpec = { type: 'choice', values: { inside: ['indoors', 'inside'], terrace: ['outside', 'outdoors', 'the terrace'] } };
  it('maps any variant (fuzzily) to its value', () => {
    expect(read('can we sit outside', seating)).toBe('terrace');
    expect(read('indoor please', seating)).toBe('inside');
    expect(read('no preference', seating)).toBeUndefined();
  });

  it('reads a regular expression capture', () => {
    expect(read('my booking reference is 4821', { type: 'pattern', regex: 'reference is (\\d+)' })).toBe('4821');
  });
});

describe('reply templates', () => {
  it('fills slots, and `{slot?text}` only when the slot is filled', () => {
    const template = 'A table for {party_size} {day}{name? under the name {name}}.';
    expect(renderTemplate(template, { party_size: 2, day: 'tonight', name: 'Ada' })).toBe('A table for 2 tonight under the name Ada.');
    expect(renderTemplate(template, { party_size: 2, day: 'tonight' })).toBe('A table for 2 tonight.');
    expect(renderTemplate('{{literal}} {x}', { x: 1 })).toBe('{literal} 1');
  });

  it('rejects broken templates with the position', () => {
    expect(() => renderTemplate('A table for {party_size', {})).toThrow(TemplateSyntaxError);
    expect(() => renderTemplate('bad {two words}', {})).toThrow(/character 5/);
  });
});
