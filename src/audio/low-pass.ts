/**
 * A linear-phase low-pass filter (windowed sinc, Blackman window: about -74 dB in the stop band) for a stream
 * of 16-bit PCM. The output is aligned with the input: sample i out is sample i in, filtered. To allow that,
 * the last half-length of the input (4.6 ms of 16 kHz audio with the default length) stays in the filter
 * until `end()`.
 */
export class LowPassFilter {
  private readonly taps: Float64Array;
  private readonly history: Float64Array;
  /** Samples given to the filter, pushed through it (with the silence `end()` adds), and given out. */
  private given = 0;
  private taken = 0;
  private emitted = 0;

  /** `transitionHz`: the width over which the response falls from pass to stop, centred on `cutoffHz`. */
  constructor(cutoffHz: number, sampleRate: number, transitionHz = 600) {
    if (!(cutoffHz > 0 && cutoffHz < sampleRate / 2)) throw new RangeError(`cutoff ${cutoffHz} Hz must be between 0 and half the ${sampleRate} Hz rate`);
    // A Blackman window's transition is about 5.5 / length of the rate wide; an odd length keeps the delay whole.
    const length = 2 * Math.ceil((5.5 * sampleRate) / transitionHz / 2) + 1;
    this.taps = new Float64Array(length);
    const middle = (length - 1) / 2;
    const cutoff = cutoffHz / sampleRate;
    let sum = 0;
    for (let i = 0; i < length; i++) {
      const t = i - middle;
      const sinc = t === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * t) / (Math.PI * t);
      const blackman = 0.42 - 0.5 * Math.cos((2 * Math.PI * i) / (length - 1)) + 0.08 * Math.cos((4 * Math.PI * i) / (length - 1));
      this.taps[i] = sinc * blackman;
      sum += this.taps[i]!;
    }
    for (let i = 0; i < length; i++) this.taps[i]! /= sum;
    this.history = new Float64Array(2 * length);
  }

  /** Samples of delay the filter needs to look ahead: held back until `end()`. */
  get lookahead(): number {
    return (this.taps.length - 1) / 2;
  }

  /** Filters the next piece; returns the filtered samples now known (fewer than given at first). */
  filter(pcm: Int16Array): Int16Array {
    const out = new Int16Array(pcm.length);
    let written = 0;
    this.given += pcm.length;
    for (const sample of pcm) {
      const value = this.push(sample);
      if (value !== undefined) out[written++] = value;
    }
    return written === out.length ? out : out.slice(0, written);
  }

  /** The samples still held back, as if the input went on in silence. */
  end(): Int16Array {
    const out: number[] = [];
    while (this.emitted < this.given) {
      const value = this.push(0);
      if (value !== undefined) out.push(value);
    }
    return Int16Array.from(out);
  }

  /** A whole recording filtered, as long as it was. */
  static apply(pcm: Int16Array, cutoffHz: number, sampleRate: number): Int16Array {
    const filter = new LowPassFilter(cutoffHz, sampleRate);
    const body = filter.filter(pcm);
    const tail = filter.end();
    const out = new Int16Array(body.length + tail.length);
    out.set(body);
    out.set(tail, body.length);
    return out;
  }

  private push(sample: number): number | undefined {
    const length = this.taps.length;
    // Each sample is stored twice, `length` apart, so the last `length` samples are always contiguous.
    const at = this.taken % length;
    this.history[at] = sample;
    this.history[at + length] = sample;
    this.taken++;
    if (this.taken <= this.lookahead) return undefined;
    // The taps are symmetric: each multiplies a pair of samples, and the middle one its own.
    const oldest = at + 1;
    const newest = at + length;
    const middle = this.lookahead;
    let acc = this.taps[middle]! * this.history[oldest + middle]!;
    for (let i = 0; i < middle; i++) acc += this.taps[i]! * (this.history[oldest + i]! + this.history[newest - i]!);
    this.emitted++;
    return Math.max(-32768, Math.min(32767, Math.round(acc)));
  }
}
