import { dotted, others, titles } from './abbreviations.js';
import { cardinal, decimal, digits, ordinal, year } from './number-words.js';

const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
  'November', 'December'];
const monthPattern = `(${months.join('|')}|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\\.?)`;
const currencies: Record<string, { one: string; many: string; cent: string; cents: string }> = {
  $: { one: 'dollar', many: 'dollars', cent: 'cent', cents: 'cents' },
  '£': { one: 'pound', many: 'pounds', cent: 'penny', cents: 'pence' },
  '€': { one: 'euro', many: 'euros', cent: 'cent', cents: 'cents' },
};
const magnitudes = 'thousand|million|billion|trillion';

/** A rewrite rule: a pattern and what each match is spoken as. */
type Rule = [RegExp, (...groups: string[]) => string];

const rules: Rule[] = [
  // Dates first, so their digits are not read as plain numbers.
  [/\b(\d{4})-(\d{2})-(\d{2})\b/g, (_m, y, mo, d) => isoDate(y!, mo!, d!)],
  [new RegExp(`\\b${monthPattern} (\\d{1,2})(?:st|nd|rd|th)?\\b(,? (\\d{4})\\b)?`, 'g'),
    (_m, mo, d, _y, y) => `${monthName(mo!)} ${ordinal(d!)}${y ? ` ${year(Number(y))}` : ''}`],
  [new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)? (?:of )?${monthPattern}(,? (\\d{4})\\b)?`, 'g'),
    (_m, d, mo, _y, y) => `the ${ordinal(d!)} of ${monthName(mo!)}${y ? ` ${year(Number(y))}` : ''}`],
  // Times: 3:30pm, 10 a.m., 15:05.
  [/\b(\d{1,2}):(\d{2})\s*([ap])\.?\s?m\b(?:\.(?=\s+[a-z]))?/gi, (_m, h, min, ap) => `${clock(h!, min!)} ${ap!.toLowerCase()} m`],
  [/\b(\d{1,2})\s*([ap])\.?\s?m\b(?:\.(?=\s+[a-z]))?/gi, (_m, h, ap) => `${cardinal(h!)} ${ap!.toLowerCase()} m`],
  [/\b(\d{1,2}):(\d{2})\b/g, (_m, h, min) => clock(h!, min!, true)],
  // Money: $1,234.56, £5, €3.50, $2 million.
  [new RegExp(`([$£€])(\\d[\\d,]*(?:\\.\\d+)?)(?: (${magnitudes}))?\\b`, 'g'), (_m, sign, amount, scale) => money(sign!, amount!, scale)],
  // Percentages, ordinals, decimals, plain numbers.
  [/(-?\d[\d,]*(?:\.\d+)?)\s?%/g, (_m, n) => `${number(n!)} percent`],
  [/\b(\d+)(st|nd|rd|th)\b/gi, (_m, n) => ordinal(n!)],
  [/(^|[\s(])-(\d)/g, (_m, before, d) => `${before}minus ${d}`],
  [/\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b|\b\d+\.\d+\b|\b\d+\b/g, (m) => number(m)],
  // Symbols.
  [/\s*&\s*/g, () => ' and '],
  [/(\w)\s*\+\s*(?=\w)/g, (_m, w) => `${w} plus `],
  [/(\w)@(\w)/g, (_m, a, b) => `${a} at ${b}`],
  [/\s@\s/g, () => ' at '],
  [/%/g, () => ' percent'],
  [/#(?=\w)/g, () => 'number '],
  [/\s=\s/g, () => ' equals '],
  [/°\s?([CF])\b/g, (_m, scale) => ` degrees ${scale === 'C' ? 'Celsius' : 'Fahrenheit'}`],
];

/**
 * Rewrites English text so a synthesiser reads it as a person would: numbers, ordinals, decimals,
 * currency, percentages, clock times, dates, common abbreviations and symbols become words.
 * Punctuation that marks sentence and clause ends is kept.
 */
export function normalizeEnglish(text: string): string {
  let out = expandAbbreviations(text);
  for (const [pattern, speak] of rules) out = out.replace(pattern, speak as (substring: string, ...args: unknown[]) => string);
  return out.replace(/[ \t]{2,}/g, ' ').trim();
}

function expandAbbreviations(text: string): string {
  let out = text;
  for (const [written, spoken] of Object.entries(dotted)) {
    out = out.replace(new RegExp(`(^|\\s)${written.replace(/\./g, '\\.')}(?=\\s|$|,)`, 'gi'), (_m, before) => `${before}${spoken}`);
  }
  // "St." is Saint before a name and Street after one.
  out = out.replace(/\bSt\.(?= [A-Z])/g, (_m, offset: number) => (/[A-Z][a-z]*\s$/.test(out.slice(0, offset)) ? 'Street' : 'Saint'));
  out = out.replace(/\b([A-Z][a-z]{1,4}|vs|etc|approx)\.(?=\s|$)(\s*)(\S?)/g, (match, word: string, space: string, next: string) => {
    const key = word.toLowerCase();
    if (Object.hasOwn(titles, key)) return `${titles[key]!}${space}${next}`;
    if (!Object.hasOwn(others, key) || months.some((m) => m.startsWith(word) && m !== word && !/^\d/.test(next))) return match;
    if (key === 'no' && !/^\d/.test(next)) return match;
    const endsSentence = next === '' || /[A-Z]/.test(next);
    return `${others[key]!}${endsSentence ? '.' : ''}${space}${next}`;
  });
  return out;
}

function number(text: string): string {
  const plain = text.replace(/,/g, '');
  if (plain.includes('.')) return decimal(plain);
  if (!text.includes(',') && /^\d{4}$/.test(plain) && Number(plain) >= 1100 && Number(plain) <= 2099) return year(Number(plain));
  if (/^0\d/.test(plain)) return digits(plain);
  return cardinal(plain);
}

function clock(hours: string, minutes: string, bare = false): string {
  const m = Number(minutes);
  const h = cardinal(hours);
  if (m === 0) return bare ? `${h} o'clock` : h;
  return `${h} ${m < 10 ? `oh ${cardinal(m)}` : cardinal(m)}`;
}

function money(sign: string, amount: string, scale: string | undefined): string {
  const unit = currencies[sign]!;
  const plain = amount.replace(/,/g, '');
  if (scale) return `${number(plain)} ${scale} ${unit.many}`;
  const [whole, fraction = ''] = plain.split('.');
  const wholeValue = BigInt(whole || '0');
  const cents = fraction ? Number(fraction.padEnd(2, '0').slice(0, 2)) : 0;
  const parts: string[] = [];
  if (wholeValue > 0n || cents === 0) parts.push(`${cardinal(wholeValue)} ${wholeValue === 1n ? unit.one : unit.many}`);
  if (cents > 0) parts.push(`${cardinal(cents)} ${cents === 1 ? unit.cent : unit.cents}`);
  return parts.join(' and ');
}

function monthName(written: string): string {
  const key = written.replace('.', '').toLowerCase().slice(0, 3);
  return months.find((m) => m.toLowerCase().startsWith(key))!;
}

function isoDate(y: string, mo: string, d: string): string {
  const month = months[Number(mo) - 1];
  if (!month || Number(d) < 1 || Number(d) > 31) return `${number(y)} ${number(mo)} ${number(d)}`;
  return `${month} ${ordinal(d)} ${year(Number(y))}`;
}
