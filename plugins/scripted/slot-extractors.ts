import type { SlotSpec } from './script-schema.js';
import type { SlotValue } from './template.js';
import { longestDigitRun } from './digit-strings.js';
import { findNumbers, readNumber } from './number-words.js';
import { canonicalTokens } from './text-normalizer.js';
import { wordSimilarity } from './word-similarity.js';

/**
 * Reads one slot's value out of an utterance's normalised tokens. `prompted` is true when the agent just asked
 * for this slot, which lets a bare answer ("eight", "john smith") count.
 */
export type SlotExtractor<S extends SlotSpec = SlotSpec> = (tokens: readonly string[], spec: S, prompted: boolean) => SlotValue | undefined;

const timeMarkers = new Set(['am', 'pm', 'oclock', 'o', 'clock']);
const defaultUnits = ['people', 'persons', 'person', 'guests', 'guest', 'adults', 'of us', 'seats'];

function startsWithPhrase(tokens: readonly string[], index: number, phrase: string): boolean {
  const words = phrase.split(' ');
  return words.every((word, k) => {
    const token = tokens[index + k];
    return token !== undefined && (token === word || (word.length > 3 && wordSimilarity(token, word) >= 0.8));
  });
}

export const extractNumber: SlotExtractor<Extract<SlotSpec, { type: 'number' }>> = (tokens, spec, prompted) => {
  const units = (spec.units ?? defaultUnits).map((u) => canonicalTokens(u).join(' '));
  const inRange = (n: number) => (spec.min === undefined || n >= spec.min) && (spec.max === undefined || n <= spec.max);
  const looksLikeTime = (index: number, length: number) =>
    tokens[index - 1] === 'at' || timeMarkers.has(tokens[index + length] ?? '') || /:/.test(tokens[index] ?? '');
  // One describing word may sit between the number and its unit: "two large pizzas", "four more people".
  const beforeUnit = (index: number, length: number, gap: number) =>
    (gap === 0 || !readNumber(tokens, index + length, true)) && units.some((u) => startsWithPhrase(tokens, index + length + gap, u));
  const candidates = findNumbers(tokens, true).filter((n) => inRange(n.value) && !looksLikeTime(n.index, n.length));
  const withUnit = candidates.find((n) => beforeUnit(n.index, n.length, 0)) ?? candidates.find((n) => beforeUnit(n.index, n.length, 1));
  if (withUnit) return withUnit.value;
  const plain = candidates.filter((n) => readNumber(tokens, n.index, false) !== undefined);
  const cued = plain.find((n) => ['for', 'of'].includes(tokens[n.index - 1] ?? ''));
  if (cued) return cued.value;
  if (prompted) {
    if (plain[0]) return plain[0].value;
    if (tokens.length <= 2 && candidates[0]) return candidates[0].value;
    const alone = tokens.includes('myself') || (tokens.includes('me') && (tokens.includes('just') || tokens.includes('only')));
    if (alone && inRange(1)) return 1;
  }
  return undefined;
};

const minuteWords: Readonly<Record<string, number>> = { half: 30, quarter: 15 };

function formatTime(hour: number, minute: number, meridiem: string | undefined): string {
  const clock = minute === 0 ? String(hour) : `${hour}:${String(minute).padStart(2, '0')}`;
  if (meridiem) return `${clock} ${meridiem}`;
  return minute === 0 ? `${hour} o'clock` : clock;
}

/** A clearly marked time first ("at seven", "7 pm"); a bare hour only when the agent asked for the time. */
export const extractTime: SlotExtractor<Extract<SlotSpec, { type: 'time' }>> = (tokens, spec, prompted) =>
  scanTime(tokens, spec, false) ?? (prompted ? scanTime(tokens, spec, true) : undefined);

function scanTime(tokens: readonly string[], spec: Extract<SlotSpec, { type: 'time' }>, bareHour: boolean): string | undefined {
  const eveningHint = tokens.some((t) => ['tonight', 'evening', 'dinner', 'night'].includes(t));
  const morningHint = tokens.some((t) => ['morning', 'breakfast'].includes(t));
  const assumed = (hour: number) => (hour >= 12 ? undefined : eveningHint ? 'pm' : morningHint ? 'am' : spec.meridiem);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === 'noon' || token === 'midday') return '12 pm';
    if (token === 'midnight') return '12 am';
    const clock = /^(\d{1,2}):(\d{2})$/.exec(token);
    if (clock) {
      const hour = Number(clock[1]);
      const meridiem = ['am', 'pm'].includes(tokens[i + 1] ?? '') ? tokens[i + 1] : assumed(hour);
      return formatTime(hour, Number(clock[2]), meridiem);
    }
    const past = minuteWords[token] !== undefined && ['past', 'after', 'to'].includes(tokens[i + 1] ?? '');
    if (past) {
      const hourMatch = readNumber(tokens, i + 2);
      if (hourMatch && hourMatch.value >= 1 && hourMatch.value <= 12) {
        let hour = hourMatch.value;
        let minute = minuteWords[token]!;
        if (tokens[i + 1] === 'to') {
          hour = hour === 1 ? 12 : hour - 1;
          minute = 60 - minute;
        }
        const after = tokens[i + 2 + hourMatch.length];
        return formatTime(hour, minute, after === 'am' || after === 'pm' ? after : assumed(hour));
      }
    }
    const hourMatch = readNumber(tokens, i);
    if (!hourMatch || hourMatch.value < 1 || hourMatch.value > 12) continue;
    const hour = hourMatch.value;
    let next = i + hourMatch.length;
    let minute = 0;
    const minuteMatch = readNumber(tokens, next);
    if (minuteMatch && minuteMatch.value >= 10 && minuteMatch.value < 60) {
      minute = minuteMatch.value;
      next += minuteMatch.length;
    }
    const marker = tokens[next];
    if (marker === 'am' || marker === 'pm') return formatTime(hour, minute, marker);
    if (marker === 'oclock' || (marker === 'o' && tokens[next + 1] === 'clock')) return formatTime(hour, minute, assumed(hour));
    if (tokens[i - 1] === 'at' || minute > 0 || bareHour) return formatTime(hour, minute, assumed(hour));
  }
  return undefined;
}

const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const relativeDays = ['tonight', 'today', 'tomorrow'];

export const extractDay: SlotExtractor<Extract<SlotSpec, { type: 'day' }>> = (tokens) => {
  const close = (token: string, word: string) => token === word || wordSimilarity(token, word) >= 0.8;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token === 'to' && close(tokens[i + 1] ?? '', 'night')) return 'tonight';
    if (token === 'this' && ['evening', 'afternoon', 'morning'].includes(tokens[i + 1] ?? '')) return `this ${tokens[i + 1]}`;
    const relative = relativeDays.find((d) => close(token, d));
    if (relative === 'tomorrow' && ['night', 'evening', 'morning', 'afternoon'].includes(tokens[i + 1] ?? '')) {
      return `tomorrow ${tokens[i + 1]}`;
    }
    if (relative) return relative;
    const weekday = weekdays.find((d) => close(token.replace(/s$/, ''), d));
    if (weekday) {
      const label = weekday[0]!.toUpperCase() + weekday.slice(1);
      return tokens[i - 1] === 'next' ? `next ${label}` : `on ${label}`;
    }
  }
  return undefined;
};

const notNames = new Set(
  ('a an the and or but for to at in on of with please thanks thank you yes no yeah it is its am i me my we ' +
    'name called calling speaking here this that table booking reservation tonight today tomorrow people person party sure okay ok').split(' '),
);
const nameCues = ['my name is', 'name is', 'this is', 'under the name of', 'under the name', 'under', 'called', 'it is'];

function capitalise(words: readonly string[]): string {
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ');
}

function takeName(tokens: readonly string[], from: number): string | undefined {
  const words: string[] = [];
  for (let i = from; i < tokens.length && words.length < 3; i++) {
    const token = tokens[i]!;
    if (notNames.has(token) || /\d/.test(token) || readNumber(tokens, i)) break;
    words.push(token);
  }
  return words.length ? capitalise(words) : undefined;
}

export const extractName: SlotExtractor<Extract<SlotSpec, { type: 'name' }>> = (tokens, _spec, prompted) => {
  for (const cue of nameCues) {
    const cueTokens = cue.split(' ');
    for (let i = 0; i + cueTokens.length <= tokens.length; i++) {
      if (!cueTokens.every((word, k) => tokens[i + k] === word)) continue;
      if (cue === 'it is' && !prompted) continue;
      const name = takeName(tokens, i + cueTokens.length);
      if (name) return name;
    }
  }
  if (prompted && tokens.length > 0 && tokens.length <= 3) return takeName(tokens, 0);
  return undefined;
};

export const extractChoice: SlotExtractor<Extract<SlotSpec, { type: 'choice' }>> = (tokens, spec) => {
  let best: { value: string; score: number } | undefined;
  for (const [value, phrases] of Object.entries(spec.values)) {
    for (const phrase of [value, ...phrases]) {
      const words = canonicalTokens(phrase);
      for (let i = 0; i + words.length <= tokens.length; i++) {
        let score = 1;
        for (let k = 0; k < words.length && score > 0; k++) {
          const s = wordSimilarity(words[k]!, tokens[i + k]!);
          score = s >= 0.8 ? Math.min(score, s) : 0;
        }
        if (score > 0 && (!best || score > best.score)) best = { value, score };
      }
    }
  }
  return best?.value;
};

/** The longest digit string said (or keyed) whose length fits; homophones ("for", "to") only when asked for. */
export const extractDigits: SlotExtractor<Extract<SlotSpec, { type: 'digits' }>> = (tokens, spec, prompted) => {
  const digits = longestDigitRun(tokens, prompted);
  if (digits === undefined) return undefined;
  // Unasked, a lone digit ("four" answering "how many?") is a count or a time far more often than a code.
  const fewest = Math.max(spec.min ?? 1, prompted ? 1 : 2);
  const fits = digits.length >= fewest && digits.length <= (spec.max ?? Infinity);
  return fits ? digits : undefined;
};

export const extractPattern: SlotExtractor<Extract<SlotSpec, { type: 'pattern' }>> = (tokens, spec) => {
  const match = new RegExp(spec.regex).exec(tokens.join(' '));
  if (!match) return undefined;
  return (match[1] ?? match[0]).trim() || undefined;
};

/** Reads `spec`'s slot from normalised tokens. */
export function extractSlot(tokens: readonly string[], spec: SlotSpec, prompted: boolean): SlotValue | undefined {
  switch (spec.type) {
    case 'number': return extractNumber(tokens, spec, prompted);
    case 'digits': return extractDigits(tokens, spec, prompted);
    case 'time': return extractTime(tokens, spec, prompted);
    case 'day': return extractDay(tokens, spec, prompted);
    case 'name': return extractName(tokens, spec, prompted);
    case 'choice': return extractChoice(tokens, spec, prompted);
    case 'pattern': return extractPattern(tokens, spec, prompted);
  }
}
