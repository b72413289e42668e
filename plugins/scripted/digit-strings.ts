import { numberHomophones } from './number-words.js';

const digitWords: Readonly<Record<string, string>> = {
  zero: '0', oh: '0', o: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9',
};

/** The digit a token stands for ("four", "oh", "4"; "for", "to" too when `allowHomophones`); digits of "419" too. */
function digitsOf(token: string, allowHomophones: boolean): string | undefined {
  if (/^\d+$/.test(token)) return token;
  if (digitWords[token] !== undefined) return digitWords[token];
  const homophone = allowHomophones ? numberHomophones[token] : undefined;
  return homophone !== undefined && homophone < 10 ? String(homophone) : undefined;
}

/** Zero said as a letter: a digit among other digits, the interjection when said alone. */
const zeroAsLetter = new Set(['oh', 'o']);

/** The longest run of digits read one by one in `tokens` ("four one nine two" → "4192"), if any; not a lone "oh". */
export function longestDigitRun(tokens: readonly string[], allowHomophones: boolean): string | undefined {
  let best = '';
  let run = '';
  let words = 0;
  for (const token of tokens) {
    const digits = digitsOf(token, allowHomophones);
    run = digits === undefined ? '' : run + digits;
    words = digits === undefined ? 0 : words + 1;
    const loneOh = words === 1 && zeroAsLetter.has(token);
    if (!loneOh && run.length > best.length) best = run;
  }
  return best || undefined;
}
