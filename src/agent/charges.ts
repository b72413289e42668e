import { addCharges } from '../client/index.js';

export { readCharge } from '../client/index.js';

/** Credits summed without binary-fraction drift; undefined when none was reported. */
export function sumCharges(charges: readonly (number | void | undefined)[]): number | undefined {
  let sum: number | undefined;
  for (const charge of charges) if (typeof charge === 'number') sum = addCharges(sum, charge);
  return sum;
}

/** What `CallSpeechToText.release()` gave, as a promise of the credits it reported (undefined: none). */
export function releasedCharge(released: void | Promise<number | undefined>): Promise<number | undefined> {
  return Promise.resolve(released).then(
    (charge) => (typeof charge === 'number' ? charge : undefined),
    () => undefined,
  );
}
