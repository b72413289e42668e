import { readNumber } from '../../plugins/scripted/number-words.js';

/**
 * Text with its numbers as digits, lower-cased, spaces folded: "Four one nine two." → "4192.", "twenty one" →
 * "21". Numbers next to each other join, as a recogniser writes digits read one by one and an agent writes "4192".
 */
export function numbersAsDigits(text: string): string {
  const tokens = text.toLowerCase().split(/\s+/).filter(Boolean);
  const parts = tokens.map((token) => /^([^a-z0-9]*)(.*?)([^a-z0-9]*)$/.exec(token)!.slice(1) as [string, string, string]);
  const cores = parts.map(([, core]) => core);
  const out: string[] = [];
  let joinable = false;
  for (let index = 0; index < tokens.length; ) {
    const match = readNumber(cores, index);
    const last = match ? index + match.length - 1 : index;
    // A number may span words only where no punctuation sits between them ("twenty, one" is two numbers).
    const clean = match && parts.slice(index, last + 1).every(([lead, , trail], at) => (at === 0 || lead === '') && (index + at === last || trail === ''));
    if (!match || !clean) {
      out.push(tokens[index]!);
      joinable = false;
      index++;
      continue;
    }
    const [lead] = parts[index]!;
    const [, , trail] = parts[last]!;
    if (joinable && lead === '') out[out.length - 1] += `${match.value}${trail}`;
    else out.push(`${lead}${match.value}${trail}`);
    joinable = trail === '';
    index = last + 1;
  }
  return out.join(' ');
}
