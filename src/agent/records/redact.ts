/** What `--redact` masks in stored call records: digits (as numerals or number words), card numbers, e-mail addresses. */
export type RedactionKind = 'digits' | 'cards' | 'emails';

export const redactionKinds: readonly RedactionKind[] = ['digits', 'cards', 'emails'];

const numberWords =
  'zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|double|triple';
const numberWord = new RegExp(`\\b(?:${numberWords})\\b`, 'gi');
/** 13 to 19 digits, as numerals with spaces or dashes, or as a run of number words. */
const cardNumerals = /\b\d(?:[ -]?\d){12,18}\b/g;
const cardWords = new RegExp(`\\b(?:(?:${numberWords})[ ,-]+){12,}(?:${numberWords})\\b`, 'gi');
const email = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
/** An address as a recogniser writes it: "jane at example dot com". */
const spokenEmail = /\b[\w.+-]+ at [\w-]+(?: dot [\w-]+)+\b/gi;

/** Masks what `kinds` name in `text`; the rest of the words stay as they were. */
export function redactText(text: string, kinds: readonly RedactionKind[]): string {
  let out = text;
  if (kinds.includes('emails')) out = out.replace(email, '[email]').replace(spokenEmail, '[email]');
  if (kinds.includes('cards')) out = out.replace(cardNumerals, '[card]').replace(cardWords, '[card]');
  if (kinds.includes('digits')) out = out.replace(/\d/g, '#').replace(numberWord, '#');
  return out;
}

/** `redactText` on every string inside a JSON-like value (tool arguments and results). */
export function redactValue(value: unknown, kinds: readonly RedactionKind[]): unknown {
  if (kinds.length === 0) return value;
  if (typeof value === 'string') return redactText(value, kinds);
  if (typeof value === 'number' && kinds.includes('digits')) return redactText(String(value), kinds);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, kinds));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, redactValue(item, kinds)]));
  }
  return value;
}

/** `--redact digits,cards,emails`: the kinds, or a RangeError naming the ones there are. */
export function parseRedaction(value: string): RedactionKind[] {
  const kinds = value.split(',').map((kind) => kind.trim()).filter(Boolean);
  for (const kind of kinds) {
    if (!redactionKinds.includes(kind as RedactionKind)) throw new RangeError(`--redact takes ${redactionKinds.join(', ')} (comma-separated), not "${kind}"`);
  }
  return kinds as RedactionKind[];
}
