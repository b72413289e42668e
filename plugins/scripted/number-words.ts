const units: Readonly<Record<string, number>> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17,
  eighteen: 18, nineteen: 19,
};
const tens: Readonly<Record<string, number>> = {
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};
/** Words a recogniser writes for a spoken number; trusted only where a number is expected. */
export const numberHomophones: Readonly<Record<string, number>> = { to: 2, too: 2, for: 4, won: 1, ate: 8 };

export interface NumberMatch {
  value: number;
  /** How many tokens the number spans. */
  length: number;
}

/** Reads a number written as digits ("12") or words ("twenty one", "a couple") starting at `tokens[index]`. */
export function readNumber(tokens: readonly string[], index: number, allowHomophones = false): NumberMatch | undefined {
  const token = tokens[index];
  if (token === undefined) return undefined;
  if (/^\d+$/.test(token)) return { value: Number(token), length: 1 };
  if (token === 'a' && tokens[index + 1] === 'couple') return { value: 2, length: 2 };
  if (token === 'couple') return { value: 2, length: 1 };
  if (token === 'dozen' || (token === 'a' && tokens[index + 1] === 'dozen')) return { value: 12, length: token === 'a' ? 2 : 1 };
  const ten = tens[token];
  if (ten !== undefined) {
    const unit = units[tokens[index + 1] ?? ''];
    return unit !== undefined && unit > 0 && unit < 10 ? { value: ten + unit, length: 2 } : { value: ten, length: 1 };
  }
  const unit = units[token];
  if (unit !== undefined) return { value: unit, length: 1 };
  if (allowHomophones && numberHomophones[token] !== undefined) return { value: numberHomophones[token]!, length: 1 };
  return undefined;
}

/** Every number in `tokens`, with where it starts. */
export function findNumbers(tokens: readonly string[], allowHomophones = false): Array<NumberMatch & { index: number }> {
  const found: Array<NumberMatch & { index: number }> = [];
  for (let i = 0; i < tokens.length; ) {
    const match = readNumber(tokens, i, allowHomophones);
    if (match) {
      found.push({ ...match, index: i });
      i += match.length;
    } else {
      i += 1;
    }
  }
  return found;
}
