/** English number words: cardinals, ordinals, years, digit strings. */

const ones = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve',
  'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const tens = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const scales: Array<[bigint, string]> = [
  [10n ** 15n, 'quadrillion'],
  [10n ** 12n, 'trillion'],
  [10n ** 9n, 'billion'],
  [10n ** 6n, 'million'],
  [1000n, 'thousand'],
];

function belowThousand(n: number): string {
  const parts: string[] = [];
  if (n >= 100) {
    parts.push(`${ones[Math.floor(n / 100)]} hundred`);
    n %= 100;
  }
  if (n >= 20) {
    parts.push(n % 10 ? `${tens[Math.floor(n / 10)]} ${ones[n % 10]}` : tens[Math.floor(n / 10)]!);
  } else if (n > 0 || parts.length === 0) {
    parts.push(ones[n]!);
  }
  return parts.join(' ');
}

/** 1234 → "one thousand two hundred thirty four"; accepts a digit string of any length below 10^18. */
export function cardinal(value: number | bigint | string): string {
  let n = BigInt(typeof value === 'string' ? value.replace(/,/g, '') : value);
  if (n < 0n) return `minus ${cardinal(-n)}`;
  if (n < 1000n) return belowThousand(Number(n));
  if (n >= 10n ** 18n) return digits(n.toString());
  const parts: string[] = [];
  for (const [scale, name] of scales) {
    if (n >= scale) {
      parts.push(`${cardinal(n / scale)} ${name}`);
      n %= scale;
    }
  }
  if (n > 0n) parts.push(belowThousand(Number(n)));
  return parts.join(' ');
}

const irregularOrdinals: Record<string, string> = {
  one: 'first', two: 'second', three: 'third', five: 'fifth', eight: 'eighth', nine: 'ninth', twelve: 'twelfth',
};

/** 21 → "twenty first". */
export function ordinal(value: number | bigint | string): string {
  const words = cardinal(value).split(' ');
  const last = words.pop()!;
  const suffixed = irregularOrdinals[last] ?? (last.endsWith('y') ? `${last.slice(0, -1)}ieth` : `${last}th`);
  return [...words, suffixed].join(' ');
}

/** "0042" → "zero zero four two". */
export function digits(text: string): string {
  return [...text].filter((c) => c >= '0' && c <= '9').map((c) => ones[Number(c)]).join(' ');
}

/** Years as spoken: 1999 → "nineteen ninety nine", 2005 → "two thousand five", 2024 → "twenty twenty four". */
export function year(value: number): string {
  if (value < 1000 || value > 9999) return cardinal(value);
  const high = Math.floor(value / 100);
  const low = value % 100;
  if (value % 1000 < 10 && high % 10 === 0) return cardinal(value);
  if (low === 0) return `${cardinal(high)} hundred`;
  return `${cardinal(high)} ${low < 10 ? `oh ${ones[low]}` : cardinal(low)}`;
}

/** "3.14" → "three point one four". */
export function decimal(text: string): string {
  const [whole, fraction] = text.replace(/,/g, '').split('.') as [string, string | undefined];
  const wholeWords = whole === '' || whole === '-' ? (whole === '-' ? 'minus zero' : 'zero') : cardinal(whole);
  return fraction ? `${wholeWords} point ${digits(fraction)}` : wholeWords;
}
