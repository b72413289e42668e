import FFT from 'fft.js';

/** Which model a stretch of 16 kHz audio should be heard with. */
export type BandVerdict = 'wide' | 'telephone';

const sampleRate = 16000;
const windowSamples = 512;
/** One spectrum every 20 ms. */
const hopSamples = 320;
/** Telephone audio has nothing above its 8 kHz rate's 4 kHz, whatever rate it is carried at. */
const highBandHz: readonly [number, number] = [4300, 7600];
/** Where telephone speech still has energy: the band just under the cut. */
const upperSpeechBandHz: readonly [number, number] = [2500, 3700];
/** Speech frames: within 30 dB of the loudest, 15 dB above the quietest, and above -60 dBFS. */
const loudWithinDb = 30;
const aboveQuietestDb = 15;
const softestSpeechDbfs = -60;
/** Speech frames (20 ms each) heard before a verdict. */
const speechFramesNeeded = 20;
/**
 * The high band's spectral density over speech frames, less the line's own (its 10th percentile over the
 * frames that are not digital silence), relative to the upper speech band's: below this, the audio is
 * telephone audio. Measured on the human and synthetic fixtures with 0-2 s of zeros or of -85 to -60 dBFS
 * line noise around them: wide-band speech -19 dB or more (human -16 dB or more), 8 kHz recordings carried
 * at 16 kHz -27 dB or less.
 */
const telephoneBelowDb = -24;
/** Below this a frame is digital silence, not a line's noise (16-bit audio's one-bit noise is about -100 dBFS). */
const digitalSilenceDbfs = -110;
/** Frames kept per utterance at most (60 s); later audio does not change an undecided verdict. */
const maxFrames = 3000;

const fft = new FFT(windowSamples);
/** One frame's windowed samples and spectrum, reused frame after frame (a worker hears one frame at a time). */
const windowed = new Array<number>(windowSamples);
const spectrum = fft.createComplexArray() as number[];
const window = Float64Array.from({ length: windowSamples }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (windowSamples - 1)));
const hannMeanSquare = 3 / 8;
const binHz = sampleRate / windowSamples;

interface FramePower {
  /** Level of the whole frame above 100 Hz, dBFS. */
  levelDbfs: number;
  /** Mean power per bin in the high band and in the upper speech band. */
  high: number;
  upperSpeech: number;
}

/**
 * Tells, from the audio itself, whether 16 kHz audio came through a telephone network (an 8 kHz recording
 * or a Bluetooth headset's narrow band carried at a wider rate): its spectrum stops at 4 kHz. Hears one
 * utterance; `verdict()` is undefined until it has heard enough speech.
 */
export class BandWatch {
  private readonly frames: FramePower[] = [];
  private pending = new Int16Array(0);
  private decided: BandVerdict | undefined;

  /** False once it has a verdict, or has heard a minute without one (it then keeps none). */
  get listening(): boolean {
    return !this.decided && this.frames.length < maxFrames;
  }

  hear(pcm16k: Int16Array): BandVerdict | undefined {
    if (!this.listening) return this.decided;
    const samples = new Int16Array(this.pending.length + pcm16k.length);
    samples.set(this.pending);
    samples.set(pcm16k, this.pending.length);
    let start = 0;
    for (; start + windowSamples <= samples.length && this.frames.length < maxFrames; start += hopSamples) {
      this.frames.push(framePower(samples.subarray(start, start + windowSamples)));
      this.decided = verdictOf(this.frames);
      if (this.decided) break;
    }
    this.pending = samples.slice(start);
    return this.decided;
  }

  verdict(): BandVerdict | undefined {
    return this.decided;
  }
}

/** The band of a whole recording; undefined when it holds too little speech to tell. */
export function bandOf(pcm16k: Int16Array): BandVerdict | undefined {
  return new BandWatch().hear(pcm16k);
}

function framePower(samples: Int16Array): FramePower {
  for (let i = 0; i < windowSamples; i++) windowed[i] = (samples[i]! / 32768) * window[i]!;
  fft.realTransform(spectrum, windowed);
  const power = (bin: number) => spectrum[2 * bin]! ** 2 + spectrum[2 * bin + 1]! ** 2;
  const meanPower = ([low, high]: readonly [number, number]) => {
    let sum = 0;
    const from = Math.ceil(low / binHz);
    const to = Math.floor(high / binHz);
    for (let bin = from; bin <= to; bin++) sum += power(bin);
    return sum / (to - from + 1);
  };
  let total = 0;
  for (let bin = Math.ceil(100 / binHz); bin <= windowSamples / 2; bin++) total += power(bin);
  // Parseval over the one-sided spectrum, less the Hann window's mean square (3/8): the frame's mean power.
  const levelDbfs = 10 * Math.log10((2 * total) / (windowSamples ** 2 * hannMeanSquare) + 1e-12);
  return { levelDbfs, high: meanPower(highBandHz), upperSpeech: meanPower(upperSpeechBandHz) };
}

function verdictOf(frames: readonly FramePower[]): BandVerdict | undefined {
  let loudest = -Infinity;
  let quietest = Infinity;
  for (const frame of frames) {
    loudest = Math.max(loudest, frame.levelDbfs);
    quietest = Math.min(quietest, frame.levelDbfs);
  }
  const speech = frames.filter(
    (frame) => frame.levelDbfs > loudest - loudWithinDb && frame.levelDbfs > quietest + aboveQuietestDb && frame.levelDbfs > softestSpeechDbfs,
  );
  if (speech.length < speechFramesNeeded) return undefined;
  // Exact digital silence (a padded recording, a muted track) says nothing about the line's noise.
  const line = frames.filter((frame) => frame.levelDbfs > digitalSilenceDbfs);
  const lineHigh = line.length > 0 ? percentile(line.map((frame) => frame.high), 0.1) : 0;
  let high = 0;
  let upperSpeech = 0;
  for (const frame of speech) {
    high += frame.high - lineHigh;
    upperSpeech += frame.upperSpeech;
  }
  const ratioDb = 10 * Math.log10(Math.max(high, 1e-30) / Math.max(upperSpeech, 1e-30));
  return ratioDb < telephoneBelowDb ? 'telephone' : 'wide';
}

function percentile(values: number[], fraction: number): number {
  const sorted = values.sort((a, b) => a - b);
  return sorted[Math.floor(fraction * (sorted.length - 1))]!;
}
