/** The keypad's two frequencies per key (ITU-T Q.23). */
const keypad: Record<string, [number, number]> = {
  '1': [697, 1209], '2': [697, 1336], '3': [697, 1477], A: [697, 1633],
  '4': [770, 1209], '5': [770, 1336], '6': [770, 1477], B: [770, 1633],
  '7': [852, 1209], '8': [852, 1336], '9': [852, 1477], C: [852, 1633],
  '*': [941, 1209], '0': [941, 1336], '#': [941, 1477], D: [941, 1633],
};

export const dtmfToneDefaults = { toneMs: 100, gapMs: 80, amplitude: 0.35 };

/** Keys that are not on a keypad. */
export class DtmfDigitsError extends Error {
  override readonly name = 'DtmfDigitsError';
  constructor(readonly digits: string) {
    super(`cannot send "${digits}" as DTMF: use 0-9, *, #, A-D (and w for a half-second pause)`);
  }
}

/**
 * In-band DTMF: the dual tones of `digits` as audio at `sampleRate` (each tone `toneMs`, `gapMs` apart; `w` is a
 * 500 ms pause), so keys can be sent down any media stream, whatever the carrier's REST API offers.
 */
export function dtmfTones(digits: string, sampleRate: number, options: Partial<typeof dtmfToneDefaults> = {}): Int16Array {
  const o = { ...dtmfToneDefaults, ...options };
  if (!/^[0-9*#A-Dw]+$/i.test(digits)) throw new DtmfDigitsError(digits);
  const at = (ms: number) => Math.round((ms * sampleRate) / 1000);
  const parts: Int16Array[] = [];
  for (const key of digits.toUpperCase()) {
    if (key === 'W') {
      parts.push(new Int16Array(at(500)));
      continue;
    }
    const [low, high] = keypad[key]!;
    const tone = new Int16Array(at(o.toneMs) + at(o.gapMs));
    for (let i = 0; i < at(o.toneMs); i++) {
      const t = i / sampleRate;
      tone[i] = Math.round(((Math.sin(2 * Math.PI * low * t) + Math.sin(2 * Math.PI * high * t)) / 2) * o.amplitude * 32767);
    }
    parts.push(tone);
  }
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) (out.set(part, offset), (offset += part.length));
  return out;
}
