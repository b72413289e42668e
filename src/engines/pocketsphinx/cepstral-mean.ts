import type Koffi from 'koffi';
import { requireOptional } from '../../optional/index.js';

/** Checked by checkPocketSphinxInstalled before the decoder worker starts. */
const koffi = requireOptional<typeof Koffi>('koffi');

/**
 * The leading fields of sphinxbase's `feat_t` (sphinxbase/feat.h, 0.8+5prealpha), up to `cmn_struct`,
 * and its `cmn_t` (sphinxbase/cmn.h). Only these fields are read or written.
 */
const FeatPrefix = koffi.struct({
  refcount: 'int',
  name: 'void *',
  cepsize: 'int32',
  n_stream: 'int32',
  stream_len: 'void *',
  window_size: 'int32',
  n_sv: 'int32',
  sv_len: 'void *',
  subvecs: 'void *',
  sv_buf: 'void *',
  sv_dim: 'int32',
  cmn: 'int',
  varnorm: 'int32',
  agc: 'int',
  compute_feat: 'void *',
  cmn_struct: 'void *',
});
const CmnStruct = koffi.struct({
  cmn_mean: 'void *',
  cmn_var: 'void *',
  sum: 'void *',
  nframe: 'int32',
  veclen: 'int32',
});

interface FeatFields {
  cepsize: number;
  cmn: number;
  cmn_struct: unknown;
}
interface CmnFields {
  cmn_mean: unknown;
  sum: unknown;
  nframe: number;
  veclen: number;
}

/**
 * One call's normalisation, carried from decoder to decoder between its utterances: the CMN mode, the running
 * mean, and live CMN's running sum and frame count (its window of recent frames). Also taken to decode one
 * utterance again (against a grammar) from the same starting point.
 */
export interface CepstralSnapshot {
  mode: number;
  mean: number[];
  sum: number[];
  frames: number;
}

/** sphinxbase's cmn_type_t: CMN_NONE, CMN_BATCH, CMN_LIVE. */
const cmnTypes = new Set([0, 1, 2]);
const maxCepstrumLength = 64;

/**
 * A decoder's cepstral mean normalisation (CMN) state as it was when the decoder was made, so it can be
 * put back when the decoder is leased again. pocketsphinx keeps a running cepstral mean across
 * utterances (and `ps_start_stream` keeps it): once one streamed utterance has been decoded, the
 * decoder also switches from batch to live CMN for good. Without this, what a pooled decoder
 * recognises depends on whatever audio its previous user sent. Restoring the mode, the mean (the
 * model's `-cmninit`), and the empty running sum makes the decoder behave as a freshly made one.
 */
export class CepstralMeanState {
  private constructor(
    private readonly feat: unknown,
    private readonly cmnStruct: unknown,
    private readonly mode: number,
    private readonly initialMean: number[],
  ) {}

  /**
   * Captures the state of a decoder's feature computation (`ps_get_feat`). Returns `undefined` when the
   * decoder does no CMN, and `null` when the memory does not look like this sphinxbase's structures (a
   * different build): such a decoder cannot be reset and must not be reused.
   */
  static capture(feat: unknown): CepstralMeanState | undefined | null {
    if (!feat) return null;
    const fields = koffi.decode(feat, FeatPrefix) as FeatFields;
    if (!cmnTypes.has(fields.cmn)) return null;
    if (!fields.cmn_struct) return fields.cmn === 0 ? undefined : null;
    const cmn = koffi.decode(fields.cmn_struct, CmnStruct) as CmnFields;
    if (cmn.veclen !== fields.cepsize || cmn.veclen <= 0 || cmn.veclen > maxCepstrumLength) return null;
    if (cmn.nframe !== 0) return null;
    const mean = Array.from(koffi.decode(cmn.cmn_mean, 'float', cmn.veclen) as ArrayLike<number>);
    return new CepstralMeanState(feat, fields.cmn_struct, fields.cmn, mean);
  }

  /**
   * Puts back the CMN mode, mean and (empty) running sum the decoder started with; `mean` (one value per
   * cepstral coefficient) replaces the starting mean when given.
   */
  restore(mean: readonly number[] = this.initialMean): void {
    this.checkLength(mean);
    this.write({ mode: this.mode, mean: [...mean], sum: new Array<number>(this.initialMean.length).fill(0), frames: 0 });
  }

  /** The normalisation as it is now, to be carried to another decoder with `restoreSnapshot`. */
  snapshot(): CepstralSnapshot {
    const length = this.initialMean.length;
    const fields = koffi.decode(this.feat, FeatPrefix) as FeatFields;
    const cmn = koffi.decode(this.cmnStruct, CmnStruct) as CmnFields;
    return {
      mode: fields.cmn,
      mean: Array.from(koffi.decode(cmn.cmn_mean, 'float', length) as ArrayLike<number>),
      sum: Array.from(koffi.decode(cmn.sum, 'float', length) as ArrayLike<number>),
      frames: cmn.nframe,
    };
  }

  /** Continues another decoder's normalisation here, as if this decoder had heard what that one heard. */
  restoreSnapshot(snapshot: CepstralSnapshot): void {
    this.checkLength(snapshot.mean);
    this.checkLength(snapshot.sum);
    this.write(snapshot);
  }

  private write({ mode, mean, sum, frames }: CepstralSnapshot): void {
    const cmn = koffi.decode(this.cmnStruct, CmnStruct) as CmnFields;
    koffi.encode(this.feat, koffi.offsetof(FeatPrefix, 'cmn'), 'int', mode);
    koffi.encode(cmn.cmn_mean, 'float', [...mean], mean.length);
    koffi.encode(cmn.sum, 'float', [...sum], sum.length);
    koffi.encode(this.cmnStruct, koffi.offsetof(CmnStruct, 'nframe'), 'int32', frames);
  }

  private checkLength(values: readonly number[]): void {
    if (values.length !== this.initialMean.length) {
      throw new RangeError(`a cepstral mean has ${this.initialMean.length} values here, got ${values.length}`);
    }
  }
}
