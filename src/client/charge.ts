/** The response header in which Shoal's speech service names what a request is billed (absent when it is not). */
export const chargeHeader = 'shoal-charge';

/**
 * A charge as the service writes it (credits, a decimal string) as a number of credits; undefined when the
 * service reported none (the hosted service, or a `shoal serve` without billing) or wrote something else.
 */
export function readCharge(text: unknown): number | undefined {
  if (typeof text !== 'string' || !/^\d+(\.\d+)?$/.test(text.trim())) return undefined;
  return Number(text);
}

/** Charges added without binary-fraction drift: credits carry at most six decimals (micro-credits). */
export function addCharges(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.round((a + b) * 1e6) / 1e6;
}
