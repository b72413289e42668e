import { LowPassFilter } from '../../audio/low-pass.js';
import { BandWatch, bandOf } from './band-watch.js';

const sampleRate = 16000;
/**
 * Audio heard in the telephone band is first narrowed to it, as an 8 kHz line would carry it: the band's model
 * was fitted on such audio, and a wider line's noise above 4 kHz is no part of it.
 */
const telephoneCutoffHz = 3800;

/**
 * The band one utterance of a call not said to be telephone audio is heard in. It starts in the band the
 * call's last utterance showed; once its own audio shows one (band-watch.ts), it may switch, and the
 * utterance is then heard again from its first sample.
 */
export class UtteranceBand {
  private readonly watch = new BandWatch();
  /** The utterance's audio as it came, while the watch has no verdict. */
  private heard: Int16Array[] = [];
  private narrowing: LowPassFilter | undefined;
  private changed = false;

  constructor(public telephone: boolean) {
    this.narrowing = narrowingFor(telephone);
  }

  /** `pcm` as the decoder should hear it now; afterwards, `switched()` says whether to hear it all again. */
  hear(pcm: Int16Array): Int16Array {
    const forDecoder = this.narrowing ? this.narrowing.filter(pcm) : pcm;
    if (!this.watch.listening) return forDecoder;
    this.heard.push(pcm);
    const verdict = this.watch.hear(pcm);
    if (verdict && (verdict === 'telephone') !== this.telephone) {
      this.telephone = verdict === 'telephone';
      this.narrowing = narrowingFor(this.telephone);
      this.changed = true;
    } else if (!this.watch.listening) {
      this.heard = [];
    }
    return forDecoder;
  }

  /**
   * Once, just after the utterance showed the other band: all of it so far as that band hears it (the
   * decoder, switched to the band, decodes it again from the start).
   */
  switched(): Int16Array[] | undefined {
    if (!this.changed) return undefined;
    this.changed = false;
    const again = this.heard.map((pcm) => (this.narrowing ? this.narrowing.filter(pcm) : pcm));
    this.heard = [];
    return again;
  }
}

/** A whole recording's band (from all of it) and its audio as that band hears it. */
export function recordingBand(pcm16k: Int16Array): { telephone: boolean; pcm: Int16Array } {
  const telephone = bandOf(pcm16k) === 'telephone';
  return { telephone, pcm: telephone ? LowPassFilter.apply(pcm16k, telephoneCutoffHz, sampleRate) : pcm16k };
}

/** A filter that narrows 16 kHz audio to the telephone band. */
export function telephoneNarrowing(): LowPassFilter {
  return new LowPassFilter(telephoneCutoffHz, sampleRate);
}

function narrowingFor(telephone: boolean): LowPassFilter | undefined {
  return telephone ? telephoneNarrowing() : undefined;
}
