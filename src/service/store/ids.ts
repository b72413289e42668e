import { createHash, randomBytes } from 'node:crypto';

/** A 32-hex-digit id, the shape of the hosted service's ids. */
export function newId(): string {
  return randomBytes(16).toString('hex');
}

/** A fresh API key secret: 32 random bytes, so a plain sha256 is a safe one-way hash. */
export function newKeySecret(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

export function hashKeySecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export const microsPerCredit = 1_000_000;

export function creditsToMicros(credits: number): number {
  return Math.round(credits * microsPerCredit);
}

/** Exact decimal text of a micro-credit amount, e.g. 12_345_600 → "12.3456". */
export function formatMicros(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / microsPerCredit);
  const fraction = String(abs % microsPerCredit).padStart(6, '0').replace(/0+$/, '');
  return `${sign}${whole}.${fraction.padEnd(2, '0')}`;
}
